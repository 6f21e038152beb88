import { z } from "zod";

/** `POST /upload` and `GET /files/:stagingKey`. */

export const StagedUploadSchema = z
  .object({
    stagingKey: z.string().meta({ description: "Pass it as a tool's file argument, or read the file back with GET /files/{stagingKey}." }),
    contentType: z.string(),
    size: z.number().int().meta({ description: "Bytes stored." }),
    expiresAt: z.string().meta({ format: "date-time", description: "After this time the key is unknown." }),
  })
  .meta({ id: "StagedUpload" });
