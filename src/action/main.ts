// The GitHub Action's entry (action.yml's `runs.main`, bundled into action/index.mjs by
// scripts/bundle.mjs): the runner starts it with `node` and its inputs as INPUT_* variables.
import { runAction } from './run.js';

process.exitCode = await runAction(process.env);
