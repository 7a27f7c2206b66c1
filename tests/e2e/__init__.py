"""End-to-end tests: the real server, driven by Debian's Chromium through Playwright."""
