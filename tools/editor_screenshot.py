"""The screenshot of docs/editors.md: Neovim (headless in tmux) completing ``\\cite{`` with
``citegraph lsp``, its screen captured with colours (``tmux capture-pane -e``), turned into HTML
by rich and photographed by Playwright's Chromium.

    .venv/bin/python tools/editor_screenshot.py --data-dir /tmp/lsp-bench/data --cite-model MODEL

The graph is the one ``--data-dir`` holds (``benchmarks/lsp.py --work W`` leaves ACL-200 ∪
ScisummNet in ``W/data``); start it first (``citegraph graph start``) so that the server
attaches at once. Needs nvim, tmux and a Chromium for Playwright.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DRAFT = r"""\documentclass{article}
\title{Dependency syntax for statistical machine translation}
\begin{document}
\begin{abstract}
We add dependency parsing to phrase-based statistical machine translation.
\end{abstract}
Phrase-based statistical machine translation \cite{koehn03} is tuned with
minimum error rate training
\bibliography{refs}
\end{document}
"""
BIB = """@inproceedings{koehn03, title = {Statistical Phrase-Based Translation},
  author = {Koehn, Philipp and Och, Franz Josef and Marcu, Daniel}, year = {2003}}
"""
INIT = """
vim.opt.termguicolors = false
vim.opt.completeopt = { "menuone", "noinsert", "preview" }
vim.opt.pumheight = 10
vim.opt.laststatus = 2
vim.api.nvim_create_autocmd("FileType", {
  pattern = "tex",
  callback = function(event)
    local id = vim.lsp.start_client({
      name = "citegraph",
      cmd = { %(python)s, "-m", "citegraph.cli", "lsp", "--cite-model", %(model)s },
    })
    vim.lsp.buf_attach_client(event.buf, id)
    vim.bo[event.buf].omnifunc = "v:lua.vim.lsp.omnifunc"
  end,
})
"""
SESSION = "citegraph-screenshot"


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--cite-model", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "editor-completion.png")
    parser.add_argument("--expect", default="P03-1021", help="a label the menu must show before the capture")
    args = parser.parse_args()
    for tool in ("nvim", "tmux"):
        if shutil.which(tool) is None:
            raise SystemExit(f"needs {tool}")
    from playwright.sync_api import sync_playwright
    from rich.console import Console
    from rich.text import Text

    with tempfile.TemporaryDirectory(prefix="citegraph-screenshot-") as tmp:
        folder = Path(tmp)
        (folder / "paper.tex").write_text(DRAFT)
        (folder / "refs.bib").write_text(BIB)
        (folder / "init.lua").write_text(
            INIT % {"python": f'"{sys.executable}"', "model": f'"{args.cite_model.resolve()}"'}
        )
        env = f"CITEGRAPH_DATA_DIR={shlex.quote(str(args.data_dir.resolve()))} TERM=screen-256color"
        nvim = f"cd {shlex.quote(str(folder))} && env {env} nvim --clean -u init.lua paper.tex"
        tmux("-2", "new-session", "-d", "-s", SESSION, "-x", "118", "-y", "32", nvim)
        try:
            time.sleep(3)
            tmux("send-keys", "-t", SESSION, "8G", "A", " \\cite{")
            time.sleep(8)  # the server opens the graph and the model meanwhile
            screen = ""
            for _ in range(60):
                tmux("send-keys", "-t", SESSION, "C-x", "C-o")
                time.sleep(2)
                screen = tmux("capture-pane", "-e", "-p", "-t", SESSION)
                if args.expect in screen:
                    break
                tmux("send-keys", "-t", SESSION, "C-e")  # close an empty menu, ask again
            else:
                raise SystemExit(f"the menu never showed {args.expect}:\n{screen}")
            time.sleep(1)
            screen = tmux("capture-pane", "-e", "-p", "-t", SESSION)
        finally:
            subprocess.run(["tmux", "kill-session", "-t", SESSION], check=False)
        console = Console(record=True, width=118, force_terminal=True, color_system="256", file=open(os.devnull, "w"))
        console.print(Text.from_ansi(screen.rstrip("\n")), soft_wrap=True)
        html = folder / "screen.html"
        html.write_text(console.export_html(inline_styles=True))
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as playwright:
            chromium = shutil.which("chromium")
            browser = playwright.chromium.launch(executable_path=chromium) if chromium else playwright.chromium.launch()
            page = browser.new_page(viewport={"width": 1200, "height": 700})
            page.goto(html.as_uri())
            page.locator("pre").first.screenshot(path=str(args.out))
            browser.close()
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
