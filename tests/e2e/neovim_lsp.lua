-- Drives Neovim's built-in LSP client against gradlint-clangd, as a user's
-- editor would: open the file, wait for the gradlint diagnostic, apply its
-- quick fix, check the buffer. Run by tests/e2e/neovim_test.py; exits 0 on
-- success and with :cquit (status 1) on failure.
local file = os.getenv("GRADLINT_NVIM_FILE")
local clangd = os.getenv("GRADLINT_CLANGD")
local expected_line = os.getenv("GRADLINT_NVIM_EXPECTED")

local function fail(message)
  io.stderr:write("FAIL: " .. message .. "\n")
  vim.cmd("cquit")
end

vim.cmd("edit " .. vim.fn.fnameescape(file))
local bufnr = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({
  cmd = { clangd, "--log=error", "--background-index=false", "--clang-tidy" },
  root_dir = vim.fn.fnamemodify(file, ":h"),
})
if not client_id then fail("could not start " .. clangd) end
vim.lsp.buf_attach_client(bufnr, client_id)

local found
vim.wait(90000, function()
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local lsp = d.user_data and d.user_data.lsp or {}
    if lsp.code == "gradlint-runtime-concat-axis" then
      found = d
      return true
    end
  end
  return false
end, 100)
if not found then fail("no gradlint-runtime-concat-axis diagnostic appeared") end
io.stdout:write("diagnostic: " .. found.message .. "\n")

local client = vim.lsp.get_client_by_id(client_id)
-- Neovim 0.7 keeps only the extra LSP fields in user_data; rebuild the
-- diagnostic the server published from the converted one.
local lsp_diag = vim.tbl_extend("force", found.user_data.lsp, {
  range = {
    start = { line = found.lnum, character = found.col },
    ["end"] = { line = found.end_lnum, character = found.end_col },
  },
  message = found.message,
  severity = found.severity,
  source = found.source,
})
local response = client.request_sync("textDocument/codeAction", {
  textDocument = vim.lsp.util.make_text_document_params(bufnr),
  range = lsp_diag.range,
  context = { diagnostics = { lsp_diag } },
}, 30000, bufnr)
if not response or not response.result then
  fail("no code action response: " .. vim.inspect(response) .. " " .. vim.inspect(lsp_diag))
end
local applied = false
for _, action in ipairs(response.result) do
  if action.kind == "quickfix" and action.edit then
    vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding or "utf-16")
    applied = true
    break
  end
end
if not applied then fail("no quick fix offered") end

local line = vim.api.nvim_buf_get_lines(bufnr, found.lnum, found.lnum + 1, false)[1]
if line ~= expected_line then
  fail("buffer line is '" .. tostring(line) .. "', expected '" .. expected_line .. "'")
end
io.stdout:write("fixed: " .. line .. "\n")
vim.lsp.stop_client(client_id, true)
vim.cmd("qa!")
