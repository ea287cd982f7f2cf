// Launches Debian's Chromium through playwright-core (no browser download), with the flags
// this machine needs (see the shared TOOLCHAIN notes).
import { chromium } from 'playwright-core';

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
}
