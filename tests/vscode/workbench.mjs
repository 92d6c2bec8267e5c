// The VS Code workbench as a user drives it: the command palette, the keyboard, input
// boxes, the status bar, the lightbulb menu, the Refactor Preview. `openVSCode`
// (harness.mjs) makes one. Every step leaves a screenshot under test-results/vscode/;
// a failed one also the Spark output channel and code-server's log, and says which
// step it was.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ARTIFACTS = path.resolve(process.env.SPARKLS_VSCODE_ARTIFACTS ?? path.join(ROOT, 'test-results', 'vscode'));
const STEP_TIMEOUT = 30_000;

export class VSCode {
  constructor({ name, page, browser, server, workspace, userData, dir, remoteHost }) {
    Object.assign(this, { name, page, browser, server, workspace, userData, dir });
    /** Whether REMOTE_HOST resolves to this machine inside code-server's namespace. */
    this.remoteHostAvailable = remoteHost;
    this.stepNumber = 0;
  }

  /**
   * Run `fn` as a named step and keep a screenshot of where it left the window (the
   * folder is the test's, emptied when it starts). A failed step also keeps the Spark
   * output channel and code-server's log, and its error names the step and shows the
   * channel's last lines.
   */
  async step(title, fn) {
    this.stepNumber += 1;
    const label = `${String(this.stepNumber).padStart(2, '0')}-${title.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`;
    const where = path.join(ARTIFACTS, this.name);
    fs.mkdirSync(where, { recursive: true });
    const shot = path.join(where, `${label}.png`);
    let result;
    try {
      result = await fn();
    } catch (error) {
      await this.page.screenshot({ path: shot }).catch(() => {});
      const log = this.sparkLog();
      fs.writeFileSync(path.join(where, `${label}.spark.log`), log);
      fs.writeFileSync(path.join(where, `${label}.code-server.log`), this.serverLog());
      const tail = log.split('\n').slice(-40).join('\n');
      throw new Error(
        `step "${title}" failed: ${error.message}\n` +
          `screenshot: ${shot}\n--- Spark output channel (last 40 lines) ---\n${tail || '(empty: the extension never logged)'}`,
        { cause: error },
      );
    }
    await this.page.screenshot({ path: shot }).catch(() => {});
    return result;
  }

  /** The Spark output channel's text ("Spark: Show Logs"), from VS Code's log folder. */
  sparkLog() {
    const found = [];
    const walk = (dir) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name === 'Spark.log') found.push(full);
      }
    };
    const logs = path.join(this.userData, 'logs');
    if (fs.existsSync(logs)) walk(logs);
    return found.sort().map((file) => fs.readFileSync(file, 'utf8')).join('\n');
  }

  path(rel) {
    return path.join(this.workspace, rel);
  }

  read(rel) {
    return fs.readFileSync(this.path(rel), 'utf8');
  }

  async press(keys) {
    for (const key of keys.split(' ')) {
      await this.page.keyboard.press(key);
    }
  }

  /** Quick Open (Ctrl+P) a workspace file and wait for its editor to have focus. */
  async openFile(rel) {
    const base = path.basename(rel);
    await this.quickInput('Control+P', rel, (row) => row.includes(base));
    const tab = this.page.locator(`.tabs-container .tab[data-resource-name="${base}"], .tabs-container .tab:has-text("${base}")`).first();
    await tab.waitFor({ timeout: STEP_TIMEOUT });
    await this.page.locator('.editor-instance .monaco-editor.focused').first().waitFor({ timeout: STEP_TIMEOUT });
  }

  /**
   * Open the quick input with `keys`, type `text`, wait for a row for which
   * `matches(rowText)` holds and pick it with Enter.
   */
  async quickInput(keys, text, matches) {
    await this.press(keys);
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    await input.fill(text);
    const deadline = Date.now() + STEP_TIMEOUT;
    for (;;) {
      const rows = await this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row').allTextContents();
      const focused = await this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row.focused').allTextContents();
      if (focused.length && matches(focused[0])) break;
      if (Date.now() > deadline) {
        throw new Error(`quick input "${text}": no row to pick among ${JSON.stringify(rows)}`);
      }
      await this.page.waitForTimeout(100);
    }
    await this.page.keyboard.press('Enter');
  }

  /** Run a command by its title from the command palette (Ctrl+Shift+P). */
  async command(title) {
    // The palette opens at its `>` prefix; without it the text is a file search.
    await this.quickInput('Control+Shift+P', `>${title}`, (row) => row.includes(title));
  }

  /** Answer an input box (showInputBox) with `text`. */
  async answerInputBox(text, { promptIncludes } = {}) {
    const widget = this.page.locator('.quick-input-widget');
    const input = widget.locator('.quick-input-box input');
    await input.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    if (promptIncludes) {
      await widget.getByText(promptIncludes, { exact: false }).first().waitFor({ timeout: STEP_TIMEOUT });
    }
    await input.fill(text);
    await this.page.keyboard.press('Enter');
    await input.waitFor({ state: 'hidden', timeout: STEP_TIMEOUT });
  }

  /** Go to a line (1-based) and column (1-based) with Ctrl+G. */
  async goTo(line, column = 1) {
    await this.press('Control+G');
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    await input.fill(`:${line}:${column}`); // Ctrl+G opens Quick Open at its `:` prefix
    await this.page.keyboard.press('Enter');
    await input.waitFor({ state: 'hidden', timeout: STEP_TIMEOUT });
  }

  /** Select whole lines `first`..`last` (1-based, inclusive) with the keyboard. */
  async selectLines(first, last) {
    await this.goTo(first, 1);
    await this.press('Home Home');
    for (let line = first; line <= last; line++) {
      await this.page.keyboard.press('Shift+ArrowDown');
    }
  }

  /** Save the active editor (Ctrl+S) and wait until its tab is no longer dirty. */
  async save() {
    await this.press('Control+S');
    await this.page.locator('.tabs-container .tab.active.dirty').waitFor({ state: 'detached', timeout: STEP_TIMEOUT });
  }

  /** The sparkls status bar item's text and tooltip label. */
  async status() {
    const item = this.page.locator('.statusbar-item[id^="sparkls.sparkls"]').first();
    if ((await item.count()) === 0) return null;
    return { text: (await item.textContent())?.trim() ?? '', label: (await item.getAttribute('aria-label')) ?? '' };
  }

  /** Wait until the status item's text or label matches `pattern`; every state seen is kept. */
  async waitForStatus(pattern, { timeout = 60_000, seen = [] } = {}) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const now = await this.status();
      if (now && (seen.length === 0 || seen[seen.length - 1].text !== now.text)) seen.push(now);
      if (now && (pattern.test(now.text) || pattern.test(now.label))) return now;
      if (Date.now() > deadline) {
        throw new Error(`the status item never matched ${pattern}; seen: ${JSON.stringify(seen)}`);
      }
      await this.page.waitForTimeout(50);
    }
  }

  /** Every text the status item has shown since the page loaded, in order. */
  statusHistory() {
    return this.page.evaluate(() => [...window.__sparkStatus]);
  }

  /** The status item's tooltip, as hovering over it shows it. */
  async statusTooltip() {
    const item = this.page.locator('.statusbar-item[id^="sparkls.sparkls"]').first();
    await item.hover();
    const hover = this.page.locator('.workbench-hover, .monaco-hover').filter({ hasText: 'Spark (sparkls)' }).first();
    await hover.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    const text = await hover.innerText();
    await this.page.mouse.move(5, 5);
    return text;
  }

  /** The pids of the sparkls language servers code-server's process group runs now. */
  sparklsServers() {
    const pids = [];
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (Number(fields[2]) !== this.server.pid || fields[0] === 'Z') continue; // pgrp, zombies
        const argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
        if (argv.some((a) => a.endsWith('/sparkls') || a === 'sparkls') && !argv.includes('emulate')) pids.push(Number(entry));
      } catch {
        // gone meanwhile
      }
    }
    return pids;
  }

  /** Wait until each of `names` has a tab marked unsaved. */
  async waitForDirty(names) {
    const dirty = this.page.locator('.tabs-container .tab.dirty');
    await this.waitFor(async () => {
      const labels = await dirty.allTextContents();
      return names.every((name) => labels.some((label) => label.includes(name)));
    }, `unsaved tabs for ${names.join(', ')}`);
  }

  /**
   * Save every dirty editor, one tab at a time (Ctrl+S in each) until none is dirty.
   * ("File: Save All" in code-server 4.139.1 under headless Chromium saves only the
   * active editor, whatever made the others dirty.)
   */
  async saveAll() {
    const dirty = this.page.locator('.tabs-container .tab.dirty');
    const deadline = Date.now() + STEP_TIMEOUT;
    while ((await dirty.count()) > 0) {
      if (Date.now() > deadline) throw new Error(`tabs still unsaved: ${await dirty.allTextContents()}`);
      await dirty.first().click();
      await this.save();
    }
  }

  /** Wait until `predicate()` holds (polled), else fail saying `what`. */
  async waitFor(predicate, what, timeout = STEP_TIMEOUT) {
    const deadline = Date.now() + timeout;
    while (!(await predicate())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await this.page.waitForTimeout(50);
    }
  }

  /** The active editor's visible text (its view lines; the test files fit on screen). */
  async editorText() {
    const lines = this.page.locator('.editor-group-container.active .editor-instance .monaco-editor .view-lines .view-line');
    const boxes = await lines.evaluateAll((nodes) =>
      nodes.map((n) => ({ top: parseFloat(n.style.top) || 0, text: (n.textContent ?? '').replace(/\u00a0/g, ' ') })));
    return boxes.sort((a, b) => a.top - b.top).map((b) => b.text).join('\n');
  }

  /** Wait until the active editor shows text for which `predicate` holds. */
  async waitForEditorText(predicate) {
    let last = '';
    await this.waitFor(async () => predicate((last = await this.editorText())), 'the editor to show the change')
      .catch((error) => { throw new Error(`${error.message}; it shows:\n${last}`); });
    return last;
  }

  /** Wait until the active editor shows `count` error squiggles. */
  async waitForDiagnostics(count, { timeout = STEP_TIMEOUT } = {}) {
    const squiggles = this.page.locator('.editor-group-container.active .monaco-editor .squiggly-error');
    await this.waitFor(async () => (await squiggles.count()) === count, `${count} error squiggle(s)`, timeout);
  }

  /** Ctrl+. at the cursor; wait for an entry matching `pattern`; return every title. */
  async openCodeActions(pattern) {
    // Ctrl+. is pressed again when no menu opens at all: on a loaded CI machine one press in
    // a run of many was lost, the cursor's lightbulb drawn but no menu (every provider had
    // answered: sparkls had listed its fix). A menu that opens without the action still fails.
    const menu = this.page.locator('.action-widget:not(.action-list-submenu-panel)').first();
    for (let press = 1; ; press += 1) {
      await this.press('Control+.');
      const opened = await menu.waitFor({ state: 'visible', timeout: 10_000 }).then(() => true, () => false);
      if (opened) break;
      if (press === 3) throw new Error('Ctrl+. opened no code action menu, pressed three times');
    }
    const rows = this.page.locator('.action-widget:not(.action-list-submenu-panel) .monaco-list-row');
    let titles = [];
    await this.waitFor(async () => {
      titles = (await rows.allTextContents()).map((t) => t.trim());
      return titles.some((t) => pattern.test(t));
    }, `a code action matching ${pattern}`).catch((error) => {
      throw new Error(`${error.message}; the menu lists ${JSON.stringify(titles)}`);
    });
    return titles;
  }

  /** Pick the open code action menu's first entry matching `pattern`. */
  async pickCodeAction(pattern) {
    const row = this.page.locator('.action-widget .monaco-list-row').filter({ hasText: pattern }).first();
    await row.click();
    await this.page.locator('.action-widget:not(.action-list-submenu-panel)').first().waitFor({ state: 'hidden', timeout: STEP_TIMEOUT });
  }

  /** Wait for inline completion ghost text in the active editor; return its text. */
  async waitForGhostText() {
    const ghost = this.page.locator('.editor-group-container.active .monaco-editor .ghost-text-decoration, .editor-group-container.active .monaco-editor .ghost-text');
    await ghost.first().waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    return (await ghost.allTextContents()).join('').replace(/\u00a0/g, ' ');
  }

  /** Wait for the Refactor Preview to list files whose labels include each of `names`; return every label. */
  async refactorPreview(names) {
    const rows = this.page.locator('.bulk-edit-panel .monaco-list-row[aria-level="1"]');
    let labels = [];
    await this.waitFor(async () => {
      labels = (await rows.allTextContents()).map((t) => t.trim());
      return names.every((name) => labels.some((label) => label.includes(name)));
    }, `the refactor preview to list ${names.join(', ')}`).catch((error) => {
      throw new Error(`${error.message}; it lists ${JSON.stringify(labels)}`);
    });
    return labels;
  }

  /**
   * Tick the Refactor Preview's checkbox of each file in `names`: VS Code lists the
   * changes of an edit that needs confirmation unticked, for the user to pick.
   */
  async tickRefactorPreview(names) {
    for (const name of names) {
      const row = this.page.locator('.bulk-edit-panel .monaco-list-row[aria-level="1"]').filter({ hasText: name }).first();
      const box = row.locator('.edit-checkbox').first();
      await box.click();
      await this.waitFor(async () => (await box.getAttribute('aria-checked')) === 'true', `${name} ticked`);
    }
  }

  /** Press the Refactor Preview's Apply button and wait for it to close. */
  async applyRefactorPreview() {
    const panel = this.page.locator('.bulk-edit-panel');
    await panel.getByRole('button', { name: 'Apply', exact: true }).click();
    await panel.waitFor({ state: 'hidden', timeout: STEP_TIMEOUT });
  }

  /** Press the button matching `name` in the modal dialog that is open (or opens). */
  async answerDialog(name) {
    const dialog = this.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    await dialog.getByRole('button', { name }).click();
    await dialog.waitFor({ state: 'hidden', timeout: STEP_TIMEOUT });
  }

  /** Wait until the file on disk satisfies `predicate` (after a save). */
  async waitForFile(rel, predicate, what) {
    const deadline = Date.now() + STEP_TIMEOUT;
    for (;;) {
      const text = fs.existsSync(this.path(rel)) ? this.read(rel) : null;
      if (text !== null && predicate(text)) return text;
      if (Date.now() > deadline) throw new Error(`${rel} never ${what}; it holds:\n${text}`);
      await this.page.waitForTimeout(50);
    }
  }

  async close() {
    await this.browser.close().catch(() => {});
    try {
      process.kill(-this.server.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      try {
        process.kill(-this.server.pid, 0);
      } catch {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    try {
      process.kill(-this.server.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

