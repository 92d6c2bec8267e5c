-- Neovim 0.11+'s documented set-up (docs/editors/neovim.md) with the tiers only in
-- `settings` (Neovim answers the server's workspace/configuration from them), an edit
-- asked the moment the client attaches, and the server's cache folder unusable
-- (XDG_CACHE_HOME a file, through `cmd_env`): issue 27's start-up as a user meets it.
-- Writes {error, text, messages} to $SPARKLS_NVIM_RESULT and quits.
local out = os.getenv('SPARKLS_NVIM_RESULT')
local result = { messages = {} }
local answered = false

local function finish()
  vim.fn.writefile({ vim.json.encode(result) }, out)
  vim.cmd('qall!')
end

local function maybe_finish()
  local told = false
  for _, m in ipairs(result.messages) do
    if m:find('workspace index', 1, true) then told = true end
  end
  if answered and told then finish() end
end

vim.lsp.handlers['window/showMessage'] = function(_, params)
  table.insert(result.messages, params.message)
  maybe_finish()
end

vim.lsp.config('sparkls', {
  cmd = { 'sparkls' },
  cmd_env = { XDG_CACHE_HOME = os.getenv('SPARKLS_NVIM_BAD_CACHE') },
  filetypes = { 'python' },
  root_markers = { '.git' },
  settings = { sparkls = { fast = { baseUrl = os.getenv('SPARKLS_NVIM_URL') } } },
})
vim.lsp.enable('sparkls')

vim.api.nvim_create_autocmd('LspAttach', {
  callback = function(args)
    local client = vim.lsp.get_client_by_id(args.data.client_id)
    local range = { start = { line = 0, character = 0 }, ['end'] = { line = 1, character = 0 } }
    local params = {
      command = 'sparkls.edit',
      arguments = { { uri = vim.uri_from_bufnr(args.buf), range = range, instruction = 'REPLACE raduis WITH radius' } },
    }
    client:request('workspace/executeCommand', params, function(err, _)
      result.error = err and err.message or vim.NIL
      result.text = table.concat(vim.api.nvim_buf_get_lines(args.buf, 0, -1, false), '\n')
      answered = true
      maybe_finish()
    end, args.buf)
  end,
})

vim.cmd.edit(os.getenv('SPARKLS_NVIM_FILE'))
vim.defer_fn(function()
  result.timeout = true
  finish()
end, 60000)
