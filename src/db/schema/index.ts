export * from "./api-keys";
export * from "./contacts";
export * from "./experiences";
export * from "./orders";
export * from "./receipts";
export * from "./wineries";
export * from "./winery-integrations";
