// Where the end-to-end tests save their screenshots of the form: target/e2e-shots/ by default,
// so a test run changes no tracked file. scripts/form_screenshots.sh sets
// STILLREEL_E2E_SHOTS_DIR=docs to refresh the committed docs/form-*.png on purpose.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { repoDir } from '../scripts/config.mjs';

/** The folder screenshots go to: STILLREEL_E2E_SHOTS_DIR (relative to the repository), else
 * target/e2e-shots. */
export const shotsDir = resolve(repoDir, process.env.STILLREEL_E2E_SHOTS_DIR || 'target/e2e-shots');
mkdirSync(shotsDir, { recursive: true });
