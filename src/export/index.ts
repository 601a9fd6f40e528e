export { type ExportedManifest, type ExportOptions, exportManifest, passwordVariables } from './manifest.js';
