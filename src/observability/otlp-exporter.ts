/**
 * The OTLP trace exporter, loaded on demand through this module rather than through a dynamic import of its package:
 * the CLI's bundle (esbuild, split into chunks) hands a dynamic import of a CommonJS package only its default export,
 * while a static import of it, here, keeps every named one.
 */
export { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
