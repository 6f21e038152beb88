/**
 * A sweeper in its own process, for the several-processes test of `filesystemBlobStore`: it opens
 * the store on the directory it is sent, answers "ready", and on "go" runs `deleteExpired(at)`
 * and sends back how many blobs it deleted.
 */
import { filesystemBlobStore } from "../../src/blob/fs.js";

process.once("message", (message: { directory: string; at: number }) => {
  const store = filesystemBlobStore({ directory: message.directory });
  process.once("message", () => {
    Promise.resolve(store.deleteExpired(new Date(message.at))).then(
      (deleted) => process.send!({ deleted }, () => process.exit(0)),
      (error: unknown) => process.send!({ error: String(error) }, () => process.exit(1)),
    );
  });
  process.send!("ready");
});
