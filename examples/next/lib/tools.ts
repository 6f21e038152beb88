// The handler shared by all the examples; in an app of your own, call createToolsHandler here.
export { tools } from "../../shared/tools.ts";
