-- Drives Neovim (0.7+) through the documented sparkls set-up, as a user would.
--
-- Run as `nvim --headless --clean -u NONE -i NONE -S nvim_flow.lua`. Parameters come
-- from environment variables:
--   SPARKLS_NVIM_SETUP     Lua file: the set-up block of docs/editors/neovim.md
--   SPARKLS_NVIM_COMMANDS  Lua file: the commands block of the same page
--   SPARKLS_NVIM_FILE      the Python file to open
--   SPARKLS_NVIM_FLOW      JSON: {"quickfix": {diagnostic, "pick"}, "edits": [{"keys", "instruction"}],
--                          "refine": {"keys", "instruction"}, "task": {"keys", "instruction"},
--                          "next_edit": {"keys", "pick"}}
--   SPARKLS_NVIM_RESULT    where to write the JSON result
--   SPARKLS_NVIM_TIMEOUT_MS  the bound on each wait (default 20000)
-- The result holds the timings (server spawn -> initialize result -> fast tier
-- ready), what was offered and sent, and the error if any; Neovim exits non-zero on
-- failure. The harness only wraps functions to observe them: the set-up, the keymaps,
-- code actions and applyEdit are Neovim's and the docs' own.

local uv = vim.loop
local env = {
  setup = os.getenv('SPARKLS_NVIM_SETUP'),
  commands = os.getenv('SPARKLS_NVIM_COMMANDS'),
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

-- Observe the client sparkls's set-up starts: when, its initialize result, its requests.
local function observe_clients()
  local start_client = vim.lsp.start_client
  vim.lsp.start_client = function(config)
    local on_init = config.on_init
    config.on_init = function(client, init_result)
      result.timings_ms.initialize = since_spawn()
      result.offset_encoding = client.offset_encoding
      result.server = init_result.serverInfo
      local request = client.request
      client.request = function(method, params, handler, bufnr)
        table.insert(result.requests, method)
        if method == 'workspace/executeCommand' then
          local record = { arguments = params.arguments }
          table.insert(result.commands, record)
          local inner = handler or vim.lsp.handlers[method]
          handler = function(err, res, ctx, cfg)
            record.result, record.error = res, err
            if inner then return inner(err, res, ctx, cfg) end
          end
        end
        return request(method, params, handler, bufnr)
      end
      if on_init then return on_init(client, init_result) end
    end
    spawned_at = uv.hrtime()
    result.client_id = start_client(config)
    return result.client_id
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

-- The user's side of the prompts: type the next instruction, pick the wanted action.
local instructions = {}
local function stub_ui()
  vim.ui.input = function(_, on_confirm)
    on_confirm(table.remove(instructions, 1))
  end
  vim.ui.select = function(items, opts, on_choice)
    local titles, chosen = {}, nil
    for _, item in ipairs(items) do
      local title = opts.format_item and opts.format_item(item) or tostring(item)
      table.insert(titles, title)
      if not chosen and vim.startswith(title, result.pick or env.flow.quickfix.pick) then
        chosen, result.picked = item, title
      end
    end
    result.offered = titles
    on_choice(chosen)
  end
  local notify = vim.notify
  vim.notify = function(message, level, opts)
    table.insert(result.notices, message)
    return notify(message, level, opts)
  end
end

local function buffer_text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, true), '\n')
end

local function quick_fix(bufnr)
  local fix = env.flow.quickfix
  local d = fix.diagnostic
  local ns = vim.api.nvim_create_namespace('sparkls-test-linter') -- as a linter would publish it
  vim.diagnostic.set(ns, bufnr, {
    {
      lnum = d.line, col = d.col, end_lnum = d.line, end_col = d.end_col,
      message = d.message, source = d.source, severity = vim.diagnostic.severity.ERROR,
    },
  })
  vim.api.nvim_win_set_cursor(0, { d.line + 1, d.col })
  local before = buffer_text(bufnr)
  vim.lsp.buf.code_action({ only = { 'quickfix' } })
  wait_for('the code actions', function() return result.offered ~= nil end)
  if not result.picked then
    error('no action starting with ' .. fix.pick .. ' among ' .. vim.inspect(result.offered))
  end
  wait_for('the quick fix to change the buffer', function()
    return buffer_text(bufnr) ~= before
  end)
end

-- Type `keys` then the documented mapping `lhs` (mapleader unset: `\`), answer its
-- prompt with `instruction`, and wait for the server's answer to the command it runs.
local function type_command(keys, lhs, instruction)
  local done = #result.commands + 1
  table.insert(instructions, instruction)
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

-- The documented <leader>st, after the file is written: only what it sends is checked
-- (the server side of sparkls.task comes later; its answer is recorded, not judged).
local function task(step)
  result.task = table.remove(result.commands, type_command(step.keys, '\\st', step.instruction))
end

-- Rename a parameter by typing (`keys`), wait for the documented handler's notice of
-- the next edit, then pick it from the code actions: Neovim applies its edit.
local function next_edit(bufnr, step)
  local notices = #result.notices
  local quick_fix_menu, quick_fix_picked = result.offered, result.picked -- kept for the quick fix's checks
  result.offered, result.picked, result.pick = nil, nil, step.pick
  vim.cmd('normal ' .. step.keys)
  wait_for('the next-edit notice', function()
    for i = notices + 1, #result.notices do
      if vim.startswith(result.notices[i], step.pick) then result.next_edit = { notice = result.notices[i] } return true end
    end
    return false
  end)
  local before = buffer_text(bufnr)
  vim.lsp.buf.code_action()
  wait_for('the code actions', function() return result.offered ~= nil end)
  if not result.picked then error('no next edit among ' .. vim.inspect(result.offered)) end
  wait_for('the next edit to change the buffer', function() return buffer_text(bufnr) ~= before end)
  result.next_edit.picked, result.next_edit.text = result.picked, buffer_text(bufnr)
  result.offered, result.picked = quick_fix_menu, quick_fix_picked
end

local function main()
  observe_clients()
  dofile(env.setup)
  dofile(env.commands)
  observe_status()
  stub_ui()
  vim.cmd('filetype on')
  vim.cmd('edit ' .. vim.fn.fnameescape(env.file))
  local bufnr = vim.api.nvim_get_current_buf()
  wait_for('the server to start', function() return spawned_at ~= nil end)
  wait_for('the initialize result', function() return result.timings_ms.initialize ~= nil end)
  wait_for('a warm fast tier', function() return result.timings_ms.warm ~= nil end)
  result.attached = vim.lsp.buf_is_attached(bufnr, result.client_id)
  quick_fix(bufnr)
  for _, step in ipairs(env.flow.edits or {}) do
    edit_with_instruction(step)
  end
  if env.flow.refine then refine(env.flow.refine) end
  vim.cmd('write')
  result.status_line = vim.g.sparkls_status
  if env.flow.task then task(env.flow.task) end
  if env.flow.next_edit then next_edit(bufnr, env.flow.next_edit) end
end

local ok, err = xpcall(main, debug.traceback)
if not ok then result.error = err end
if result.client_id then
  vim.lsp.stop_client(result.client_id)
  vim.wait(5000, function() return vim.lsp.client_is_stopped(result.client_id) end, 10)
end
local out = assert(io.open(env.result, 'w'))
out:write(vim.json.encode(result))
out:close()
vim.cmd(ok and 'qall!' or 'cquit 1')
