export * from "./api-keys";
export * from "./contacts";
export * from "./wineries";
