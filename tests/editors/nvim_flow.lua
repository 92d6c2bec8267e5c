-- Drives Neovim (0.7 or 0.11+) through the documented sparkls set-up, as a user would.
--
-- Run as `nvim --headless --clean -u NONE -i NONE -S nvim_flow.lua`. Parameters come
-- from environment variables:
--   SPARKLS_NVIM_BLOCKS    JSON list of Lua files run in order: blocks of docs/editors/neovim.md
--                          (the set-up for this version, the commands, and on 0.11+ the
--                          quick-fix and inline-completion blocks)
--   SPARKLS_NVIM_FILE      the Python file to open (a second one, `other`, is in the flow)
--   SPARKLS_NVIM_FLOW      JSON: the steps, each optional (see tests/editors/nvim_driver.py)
--   SPARKLS_NVIM_RESULT    where to write the JSON result
--   SPARKLS_NVIM_TIMEOUT_MS  the bound on each wait (default 20000)
-- The result holds the timings (server spawn -> initialize result -> fast tier
-- ready), what was offered and sent, each step's outcome, the LSP log's path, and the
-- error if any; Neovim exits non-zero on failure. The harness only wraps functions to
-- observe them and answers the prompts: the set-up, the keymaps, code actions,
-- applyEdit, showDocument and inline completion are Neovim's and the docs' own.

local uv = vim.loop
local modern = vim.fn.has('nvim-0.11') == 1
local env = {
  blocks = vim.json.decode(os.getenv('SPARKLS_NVIM_BLOCKS') or '[]'),
  file = os.getenv('SPARKLS_NVIM_FILE'),
  flow = vim.json.decode(os.getenv('SPARKLS_NVIM_FLOW') or '{}'),
  result = os.getenv('SPARKLS_NVIM_RESULT'),
  timeout = tonumber(os.getenv('SPARKLS_NVIM_TIMEOUT_MS') or '20000'),
}

local result = {
  nvim = tostring(vim.version().major) .. '.' .. vim.version().minor .. '.' .. vim.version().patch,
  timings_ms = {},
  requests = {}, -- client -> server request methods, in order
  statuses = {}, -- fast-tier states from sparkls/status, in order
  commands = {}, -- workspace/executeCommand: {arguments, result}
  notices = {}, -- vim.notify messages
  notice_levels = {}, -- their levels (vim.log.levels; INFO when none given)
  steps = {}, -- the steps that completed, in order
  applied_edits = {}, -- workspace/applyEdit: {shape, uris}
  diagnostics_from = {}, -- each diagnostics answer or notice: {client, bufnr, version}
  log_path = require('vim.lsp.log').get_filename(),
}

local spawned_at
local function since_spawn()
  return (uv.hrtime() - spawned_at) / 1e6
end

local function wait_for(what, predicate)
  if not vim.wait(env.timeout, predicate, 5) then
    error('timed out waiting for ' .. what, 2)
  end
end

-- Record the client's requests (and the answers to executeCommand). 0.11+ clients
-- take `self` first (client:request), older ones do not.
local function observe_requests(client)
  local request = client.request
  local function observed(method, params, handler)
    table.insert(result.requests, method)
    if method ~= 'workspace/executeCommand' then return handler end
    local record = { arguments = params.arguments }
    table.insert(result.commands, record)
    local inner = handler or vim.lsp.handlers[method]
    return function(err, res, ctx, cfg)
      record.result, record.error = res, err
      if inner then return inner(err, res, ctx, cfg) end
    end
  end
  if modern then
    client.request = function(self, method, params, handler, bufnr)
      return request(self, method, params, observed(method, params, handler), bufnr)
    end
  else
    client.request = function(method, params, handler, bufnr)
      return request(method, params, observed(method, params, handler), bufnr)
    end
  end
end

local function on_init(client, init_result)
  result.timings_ms.initialize = since_spawn()
  result.offset_encoding = client.offset_encoding
  result.server = init_result.serverInfo
  result.client_id = client.id
  observe_requests(client)
end

-- When sparkls's process starts (every version spawns through vim.lsp.rpc.start), and
-- its client: through the config on 0.11+, through start_client on 0.7.
local function observe_clients()
  local rpc_start = vim.lsp.rpc.start
  vim.lsp.rpc.start = function(cmd, ...)
    if (type(cmd) == 'table' and cmd[1] or cmd) == 'sparkls' then spawned_at = uv.hrtime() end
    return rpc_start(cmd, ...)
  end
  if modern then return end
  local start_client = vim.lsp.start_client
  vim.lsp.start_client = function(config)
    local documented = config.on_init
    config.on_init = function(client, init_result)
      on_init(client, init_result)
      if documented then return documented(client, init_result) end
    end
    return start_client(config)
  end
end

local function observe_status()
  local documented = vim.lsp.handlers['sparkls/status']
  vim.lsp.handlers['sparkls/status'] = function(err, status, ctx, cfg)
    local fast = status and status.tiers and status.tiers.fast
    if fast then
      table.insert(result.statuses, fast.state)
      if fast.state == 'ready' and not result.timings_ms.warm then
        result.timings_ms.warm = since_spawn()
      end
    end
    if documented then return documented(err, status, ctx, cfg) end
  end
end

-- Each workspace/applyEdit the server sends: its shape (`changes` or `documentChanges`)
-- and the URIs it edits, in order.
local function observe_apply_edit()
  local apply = vim.lsp.handlers['workspace/applyEdit']
  vim.lsp.handlers['workspace/applyEdit'] = function(err, params, ctx, cfg)
    local edit, seen = params.edit, { uris = {} }
    seen.shape = edit.documentChanges and 'documentChanges' or 'changes'
    for _, change in ipairs(edit.documentChanges or {}) do
      if change.textDocument then table.insert(seen.uris, change.textDocument.uri) end
    end
    for uri in pairs(edit.changes or {}) do table.insert(seen.uris, uri) end
    table.sort(seen.uris)
    table.insert(result.applied_edits, seen)
    return apply(err, params, ctx, cfg)
  end
end

-- Each server's diagnostics, pulled (0.12 asks ruff: textDocument/diagnostic) or
-- published: which server, for which buffer, for which of its versions.
local function observe_diagnostics()
  for _, method in ipairs({ 'textDocument/publishDiagnostics', 'textDocument/diagnostic' }) do
    local inner = vim.lsp.handlers[method]
    vim.lsp.handlers[method] = function(err, res, ctx, cfg)
      local client = vim.lsp.get_client_by_id(ctx.client_id)
      local pushed = method == 'textDocument/publishDiagnostics'
      table.insert(result.diagnostics_from, {
        client = client and client.name,
        bufnr = pushed and res and vim.uri_to_bufnr(res.uri) or ctx.bufnr,
        version = pushed and res and res.version or ctx.version,
        failed = err ~= nil,
      })
      return inner(err, res, ctx, cfg)
    end
  end
end

-- The server's log line saying the workspace index is built (the follow-ups in files
-- not open are found through it).
local function observe_index()
  local log = vim.lsp.handlers['window/logMessage']
  vim.lsp.handlers['window/logMessage'] = function(err, params, ctx, cfg)
    if params and vim.startswith(params.message or '', 'workspace index:') then result.index_built = true end
    return log(err, params, ctx, cfg)
  end
end

-- The user's side of the prompts: type the next instruction, pick the wanted action.
local instructions = {}
local pick -- the start of the title to pick from the next menu (nil: pick nothing)
local function stub_ui()
  vim.ui.input = function(_, on_confirm)
    on_confirm(table.remove(instructions, 1))
  end
  vim.ui.select = function(items, opts, on_choice)
    local titles, chosen = {}, nil
    for _, item in ipairs(items) do
      local title = opts.format_item and opts.format_item(item) or tostring(item)
      table.insert(titles, title)
      if pick and not chosen and vim.startswith(title, pick) then
        chosen, result.picked = item, title
      end
    end
    result.offered = titles
    on_choice(chosen)
  end
  local notify = vim.notify
  vim.notify = function(message, level, opts)
    table.insert(result.notices, message)
    table.insert(result.notice_levels, level or vim.log.levels.INFO)
    return notify(message, level, opts)
  end
end

local function buffer_text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, true), '\n')
end

-- Open the code action menu with `open()`, pick the action starting with `title`
-- (none when nil), and return what was offered and picked.
local function code_actions(open, title)
  result.offered, result.picked, pick = nil, nil, title
  open()
  wait_for('the code actions', function() return result.offered ~= nil end)
  if title and not result.picked then
    error('no action starting with ' .. title .. ' among ' .. vim.inspect(result.offered))
  end
  return result.offered, result.picked
end

-- 0.7: a linter's diagnostic set in a namespace; `code_action()` sends it to sparkls.
-- 0.11+: ruff (the documented block) reports it; plain `code_action()` sends sparkls none
-- (recorded), the documented `gra` sends it, and the fix is picked from that menu.
local function quick_fix(bufnr, step)
  local d = step.diagnostic
  if modern then
    wait_for("ruff's diagnostic", function() return #vim.diagnostic.get(bufnr, { lnum = d.line }) > 0 end)
  else
    vim.diagnostic.set(vim.api.nvim_create_namespace('sparkls-test-linter'), bufnr, {
      {
        lnum = d.line, col = d.col, end_lnum = d.line, end_col = d.end_col,
        message = d.message, source = d.source, severity = vim.diagnostic.severity.ERROR,
      },
    })
  end
  vim.api.nvim_win_set_cursor(0, { d.line + 1, d.col })
  local before = buffer_text(bufnr)
  local fix = {}
  if step.plain_first then
    fix.plain_offered = code_actions(function() vim.lsp.buf.code_action() end, nil)
  end
  local open = step.keys and function() vim.cmd('normal ' .. step.keys) end
    or function() vim.lsp.buf.code_action({ only = { 'quickfix' } }) end
  fix.offered, fix.picked = code_actions(open, step.pick)
  wait_for('the quick fix to change the buffer', function() return buffer_text(bufnr) ~= before end)
  result.quickfix = fix
end

-- Type `keys` then the documented mapping `lhs` (mapleader unset: `\`), answer its
-- prompt with `instruction`, and wait for the server's answer to the command it runs.
local function type_command(keys, lhs, instruction)
  local done = #result.commands + 1
  if instruction then table.insert(instructions, instruction) end
  vim.cmd('normal ' .. keys .. lhs)
  wait_for(lhs .. ' to get an answer', function()
    local record = result.commands[done]
    return record ~= nil and (record.result or record.error) ~= nil
  end)
  return done
end

local function edit_with_instruction(step)
  local record = result.commands[type_command(step.keys, '\\se', step.instruction)]
  if record.error or not record.result.applied then
    error('sparkls.edit failed: ' .. vim.inspect(record))
  end
  result.timings_ms.first_edit = result.timings_ms.first_edit or since_spawn()
end

-- The documented <leader>sr: the last edit, refined with an instruction.
local function refine(step)
  result.refine = table.remove(result.commands, type_command(step.keys, '\\sr', step.instruction))
  if result.refine.error or not result.refine.result.applied then
    error('sparkls.refine failed: ' .. vim.inspect(result.refine))
  end
end

-- The documented <leader>st with a second file open: what it sends, its answer, and
-- both buffers afterwards (its answer is judged by the tests, not here).
local function task(bufnr, step)
  vim.cmd('belowright split ' .. vim.fn.fnameescape(step.other)) -- both files on screen
  local other = vim.api.nvim_get_current_buf()
  wait_for('sparkls on the second file', function() return vim.lsp.buf_is_attached(other, result.client_id) end)
  vim.cmd('wincmd p')
  result.task = table.remove(result.commands, type_command(step.keys, '\\st', step.instruction))
  result.task.texts = { buffer_text(bufnr), buffer_text(other) }
end

-- Rename a parameter by typing (`keys`), wait for the documented handler's notice of
-- the next edit, then pick it from the code actions: Neovim applies its edit.
local function next_edit(bufnr, step)
  local notices = #result.notices
  vim.cmd('normal ' .. step.keys)
  wait_for('the next-edit notice', function()
    for i = notices + 1, #result.notices do
      if vim.startswith(result.notices[i], step.pick) then result.next_edit = { notice = result.notices[i] } return true end
    end
    return false
  end)
  local before = buffer_text(bufnr)
  local _, picked = code_actions(function() vim.lsp.buf.code_action() end, step.pick)
  wait_for('the next edit to change the buffer', function() return buffer_text(bufnr) ~= before end)
  result.next_edit.picked, result.next_edit.text = picked, buffer_text(bufnr)
end

-- Poll the code actions at the cursor (bounded) until one's title starts with `title`.
local function wait_for_action(bufnr, title)
  local params = vim.lsp.util.make_range_params(0, result.offset_encoding)
  params.context = { diagnostics = {} }
  wait_for('the code action ' .. title, function()
    local answers = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', params, 1000) or {}
    for _, answer in pairs(answers) do
      for _, action in ipairs(answer.result or {}) do
        if vim.startswith(action.title, title) then return true end
      end
    end
    return false
  end)
end

local function file_text(path)
  local f = io.open(path, 'r')
  if not f then return nil end
  local text = f:read('*a')
  f:close()
  return text
end

-- Rename a definition that other files use by typing (`keys`), wait for "Spark: update"
-- to be listed, pick it from the code actions, and record the command's answer and
-- what became of the open file (`other`, in its split) and the file not open (`closed`):
-- its buffer if Neovim made one, and its text on disk; then `u` in each of them.
local function follow_ups(bufnr, step)
  wait_for('the workspace index', function() return result.index_built end)
  vim.cmd('normal ' .. step.keys)
  wait_for_action(bufnr, step.pick)
  local done = #result.commands + 1
  local _, picked = code_actions(function() vim.lsp.buf.code_action() end, step.pick)
  wait_for('the follow-ups command to get an answer', function()
    local record = result.commands[done]
    return record ~= nil and (record.result or record.error) ~= nil
  end)
  local record = table.remove(result.commands, done)
  local other, closed = vim.fn.bufnr(step.other), vim.fn.bufnr(step.closed)
  local buffer = function(b)
    if b == -1 then return { exists = false } end
    return {
      exists = true, loaded = vim.api.nvim_buf_is_loaded(b), listed = vim.bo[b].buflisted,
      shown = vim.fn.bufwinid(b) ~= -1, modified = vim.bo[b].modified, text = buffer_text(b),
    }
  end
  result.follow_ups = {
    picked = picked, arguments = record.arguments, result = record.result, error = record.error,
    other = buffer(other), closed = buffer(closed), closed_disk = file_text(step.closed),
    this_modified = vim.bo[bufnr].modified,
  }
  -- `u` in each buffer's window: `other`'s split (open since the task), then the
  -- loaded file's buffer in a split of its own.
  local here = vim.api.nvim_get_current_win()
  local undo = function(b)
    vim.cmd('normal u')
    return { text = buffer_text(b), modified = vim.bo[b].modified }
  end
  vim.fn.win_gotoid(vim.fn.bufwinid(other))
  result.follow_ups.undone = { other = undo(other) }
  if closed ~= -1 then
    vim.cmd('sbuffer ' .. closed)
    result.follow_ups.undone.closed = undo(closed)
    vim.cmd('close')
  end
  vim.fn.win_gotoid(here)
end

-- An edit the server applies with a warning: what the keymap said last.
local function warned_edit(step)
  local notices = #result.notices
  local record = result.commands[type_command(step.keys, '\\se', step.instruction)]
  result.warned = { result = record.result, notices = {}, levels = {} }
  wait_for("the keymap's message", function() return #result.notices > notices + 1 end)
  for i = notices + 1, #result.notices do
    table.insert(result.warned.notices, result.notices[i])
    table.insert(result.warned.levels, result.notice_levels[i])
  end
end

-- The context view: "Show Spark context" from the menu (0.11+: the server opens
-- context.md with window/showDocument), or the documented <leader>sc (0.7: a scratch
-- buffer). Records the buffer that opened, then goes back.
local function context(bufnr, step)
  vim.cmd('normal ' .. step.keys)
  if step.pick then
    code_actions(function() vim.lsp.buf.code_action() end, step.pick)
  else
    type_command('', '\\sc', nil)
  end
  wait_for('the context view', function() return vim.api.nvim_get_current_buf() ~= bufnr end)
  local shown = vim.api.nvim_get_current_buf()
  result.context = { name = vim.api.nvim_buf_get_name(shown), buftype = vim.bo[shown].buftype, text = buffer_text(shown) }
  vim.api.nvim_set_current_buf(bufnr)
end

-- Inline completion (0.12): type in insert mode, with the event loop running, until
-- the ghost text shows; press the documented accept key, then leave insert mode.
local function inline_completion(bufnr, step)
  local ns = vim.api.nvim_create_namespace('nvim.lsp.inline_completion')
  local keycode = function(k) return vim.api.nvim_replace_termcodes(k, true, false, true) end
  local started, before, phase = uv.hrtime(), nil, 'typing'
  local timer = uv.new_timer()
  local done = {}
  timer:start(10, 10, vim.schedule_wrap(function()
    if phase == 'typing' then
      local marks = vim.api.nvim_buf_get_extmarks(bufnr, ns, 0, -1, { details = true })
      if #marks > 0 then
        local texts = {}
        for _, chunk in ipairs(marks[1][4].virt_text or {}) do table.insert(texts, chunk[1]) end
        done.ghost = table.concat(texts)
        before, phase = buffer_text(bufnr), 'accepting'
        vim.api.nvim_feedkeys(keycode(step.accept), 'm', false) -- mapped: the documented key
      end
    elseif phase == 'accepting' and buffer_text(bufnr) ~= before then
      phase = 'accepted'
    end
    if phase == 'accepted' or (uv.hrtime() - started) / 1e6 > env.timeout then
      timer:stop()
      timer:close()
      vim.api.nvim_feedkeys(keycode('<Esc>'), 'n', false)
    end
  end))
  vim.api.nvim_feedkeys(keycode(step.keys), 'tx!', false) -- returns once insert mode is left
  if phase ~= 'accepted' then error('inline completion: ' .. phase .. ', ghost ' .. vim.inspect(done.ghost)) end
  done.text = buffer_text(bufnr)
  result.inline = done
end

-- ruff's diagnostics of `bufnr` once ruff has answered for its text as it is now: a
-- sorted list of {line, first line of the message}.
local function ruff_diagnostics(bufnr, what)
  local version = vim.lsp.util.buf_versions[bufnr]
  wait_for("ruff's diagnostics " .. what, function()
    for _, seen in ipairs(result.diagnostics_from) do
      if seen.client == 'ruff' and seen.bufnr == bufnr and seen.version == version and not seen.failed then return true end
    end
    return false
  end)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.source == 'Ruff' then table.insert(found, { d.lnum, vim.split(d.message, '\n', { plain = true })[1] }) end
  end
  table.sort(found, function(a, b) return a[1] < b[1] end)
  return found
end

-- Beside ruff, in a file of its own (tests/editors/neighbours.py): Spark's fix of ruff's
-- diagnostic, a Spark edit that moves lines, ruff's own fix; each picked from the
-- documented `gra` menu; ruff's diagnostics after each.
local function neighbours(step)
  vim.cmd('edit ' .. vim.fn.fnameescape(step.file))
  local bufnr = vim.api.nvim_get_current_buf()
  wait_for('ruff and sparkls in the new buffer', function()
    local names = {}
    for _, client in ipairs(vim.lsp.get_clients({ bufnr = bufnr })) do names[client.name] = true end
    return names.ruff and names.sparkls
  end)
  local done = { diagnostics = { start = ruff_diagnostics(bufnr, 'on opening') }, texts = {}, offered = {} }
  for _, name in ipairs({ 'fix', 'shift', 'ruff' }) do
    local action = step[name]
    local keys = action.to_line and string.format('%dGV%dGgra', action.line + 1, action.to_line + 1)
      or string.format('%dGgra', action.line + 1)
    local before = buffer_text(bufnr)
    done.offered[name] = code_actions(function() vim.cmd('normal ' .. keys) end, action.title)
    wait_for(action.title .. ' to change the buffer', function() return buffer_text(bufnr) ~= before end)
    vim.cmd('normal! \27')
    done.texts[name] = buffer_text(bufnr) .. '\n'
    done.diagnostics[name] = ruff_diagnostics(bufnr, 'after ' .. name)
  end
  result.neighbours = done
end

local function step(name, fn, ...)
  if env.flow[name] then
    fn(...)
    table.insert(result.steps, name)
  end
end

local function main()
  observe_clients()
  for _, file in ipairs(env.blocks) do dofile(file) end
  if modern then vim.lsp.config('sparkls', { on_init = on_init }) end
  observe_status()
  observe_diagnostics()
  observe_apply_edit()
  observe_index()
  stub_ui()
  vim.cmd('filetype on')
  vim.cmd('edit ' .. vim.fn.fnameescape(env.file))
  local bufnr = vim.api.nvim_get_current_buf()
  wait_for('the server to start', function() return spawned_at ~= nil end)
  wait_for('the initialize result', function() return result.timings_ms.initialize ~= nil end)
  wait_for('a warm fast tier', function() return result.timings_ms.warm ~= nil end)
  result.attached = vim.lsp.buf_is_attached(bufnr, result.client_id)
  table.insert(result.steps, 'ready')
  step('quickfix', quick_fix, bufnr, env.flow.quickfix)
  for _, edit in ipairs(env.flow.edits or {}) do
    edit_with_instruction(edit)
  end
  if env.flow.edits then table.insert(result.steps, 'edits') end
  step('refine', refine, env.flow.refine)
  vim.cmd('write')
  result.status_line = vim.g.sparkls_status
  step('task', task, bufnr, env.flow.task)
  step('next_edit', next_edit, bufnr, env.flow.next_edit)
  step('warned_edit', warned_edit, env.flow.warned_edit)
  step('context', context, bufnr, env.flow.context)
  step('inline', inline_completion, bufnr, env.flow.inline)
  step('follow_ups', follow_ups, bufnr, env.flow.follow_ups)
  step('neighbours', neighbours, env.flow.neighbours)
end

local ok, err = xpcall(main, debug.traceback)
if not ok then result.error = err end
local clients = vim.lsp.get_clients or vim.lsp.get_active_clients -- 0.10+ / older
for _, client in ipairs(clients()) do
  vim.lsp.stop_client(client.id)
end
vim.wait(5000, function() return #clients() == 0 end, 10)
local out = assert(io.open(env.result, 'w'))
out:write(vim.json.encode(result))
out:close()
vim.cmd(ok and 'qall!' or 'cquit 1')
