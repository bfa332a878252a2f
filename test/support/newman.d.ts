/** Just enough types for newman 6 (it ships none): its Node API, as test/a2a/postman.test.ts runs a collection. */
declare module 'newman' {
  interface Assertion {
    assertion: string;
    skipped?: boolean;
    error?: { message: string };
  }
  interface Execution {
    item: { name: string };
    request: { method: string; url: { toString(): string } };
    response?: { code: number; stream?: Buffer };
    assertions?: Assertion[];
    requestError?: Error;
  }
  export interface RunSummary {
    run: {
      stats: { requests: { total: number; failed: number }; assertions: { total: number; failed: number } };
      executions: Execution[];
      failures: { error: { message: string; test?: string }; source?: { name?: string } }[];
    };
  }
  export interface RunOptions {
    collection: object;
    environment?: object;
    reporters?: string[];
    /** Milliseconds a request may take. */
    timeoutRequest?: number;
  }
  export function run(options: RunOptions, callback: (error: Error | null, summary: RunSummary) => void): void;
}
