// The part of autocannon's API the bench uses (the package ships no types; @types/autocannon
// would be one more dependency for a handful of fields).
declare module "autocannon" {
  interface Histogram {
    average: number;
    mean: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
  }
  interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (req: Request, context: Record<string, unknown>) => Request;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: Request[];
  }
  interface Result {
    latency: Histogram;
    requests: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    "2xx": number;
    statusCodeStats: Record<string, { count: number }>;
    start: Date;
    finish: Date;
  }
  function autocannon(options: Options): Promise<Result>;
  // biome-ignore lint/style/noDefaultExport: the package's own CommonJS export, as it is.
  export default autocannon;
}
