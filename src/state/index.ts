export { type LoadedState, loadState, saveState } from './file.js';
export * from './state.js';
