// `express4` is express@4 under another name (a dev-dependency alias). Its API, as far as the
// tests use it, is Express 5's.
declare module "express4" {
  import express from "express";
  export default express;
}
