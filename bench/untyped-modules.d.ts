/**
 * Just enough types for the two dev dependencies the benchmark uses that ship none (autocannon 8, express 5), so
 * `npm run typecheck` (which includes bench/) stays strict without adding @types packages.
 */

declare module 'autocannon' {
  namespace autocannon {
    interface Options {
      /** Several URLs: the connections are spread over them round-robin. */
      url: string | string[];
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      connections?: number;
      pipelining?: number;
      /** Seconds. */
      duration?: number;
      /** Returns false for a response body that must count as a mismatch. */
      verifyBody?: (body: string) => boolean;
      timeout?: number;
      /** Requests cycled through per connection; `setupRequest` may rewrite each one before it is sent. */
      requests?: { setupRequest?: (request: RequestParams) => RequestParams }[];
    }
    interface RequestParams {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
    }
    /** Percentiles and summary of one histogram (autocannon's latency values are in ms). */
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p90: number;
      p97_5: number;
      p99: number;
      p99_9: number;
    }
    interface Result {
      duration: number;
      errors: number;
      timeouts: number;
      mismatches: number;
      non2xx: number;
      resets: number;
      latency: Histogram;
      requests: Histogram & { sent: number };
      throughput: Histogram;
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export default autocannon;
}

declare module 'express' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  export type Request = IncomingMessage & { header(name: string): string | undefined; body: unknown };
  export type Response = ServerResponse;
  export type NextFunction = (error?: unknown) => void;
  export type RequestHandler = (req: Request, res: Response, next: NextFunction) => void;
  export interface Application {
    (req: IncomingMessage, res: ServerResponse, next?: NextFunction): void;
    use(...handlers: RequestHandler[]): Application;
  }
  export default function express(): Application;
}
