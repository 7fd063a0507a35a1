"""Result tables as the papers print them, written as JSON, CSV and Markdown, and plotted.

A :class:`Table` is models × columns of values (a mean, with a standard deviation over
repeats where there are repeats); the best value per column is marked (bold in Markdown),
as the MDCR paper marks its tables. Every evaluation writes ``results.json`` (the
configuration, the tables and every per-query value, for significance tests later),
``results.csv`` (one row per table cell) and ``results.md``, and the figures users expect
from the paper's tables as PNG and SVG: a metric against pool size per model (Table 1),
per-field bars per model (Table 2), and a model × candidate-type heatmap (Table 4).
"""

from __future__ import annotations

import csv
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: dict[str, dict[str, list[Any]]] = field(default_factory=dict)  # model → column → [mean, std or None]
    scale: float = 100.0  # shown as percentages, as the papers do
    figure: str = ""  # how draw() plots it: "line", "bar", "heatmap" or nothing
    name: str = ""  # the figure's file name, without suffix
    xlabel: str = ""
    digits: int = 2  # decimals shown (p values want more)

    def set(self, row: str, column: str, mean: float, std: float | None = None) -> None:
        self.rows.setdefault(row, {})[column] = [mean, std]

    def best(self, column: str) -> float | None:
        values = [cells[column][0] for cells in self.rows.values() if column in cells]
        return max(values) if values else None

    def markdown(self) -> str:
        lines = [
            f"**{self.title}**",
            "",
            "| model | " + " | ".join(self.columns) + " |",
            "|---|" + "---:|" * len(self.columns),
        ]
        for model, cells in self.rows.items():
            shown = []
            for column in self.columns:
                if column not in cells:
                    shown.append("—")
                    continue
                mean, std = cells[column]
                text = f"{mean * self.scale:.{self.digits}f}"
                if std:
                    text += f" ± {std * self.scale:.{self.digits}f}"
                shown.append(f"**{text}**" if len(self.rows) > 1 and mean == self.best(column) else text)
            lines.append(f"| {model} | " + " | ".join(shown) + " |")
        return "\n".join(lines)


def write_results(out: Path, config: dict, tables: list[Table], per_query: dict) -> None:
    """``results.json``, ``results.csv`` and ``results.md`` in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(
        json.dumps({"config": config, "tables": [asdict(t) for t in tables], "per_query": per_query}, indent=1) + "\n",
        encoding="utf-8",
    )
    with open(out / "results.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["table", "model", "column", "mean", "std"])
        for table in tables:
            for model, cells in table.rows.items():
                for column, (mean, std) in cells.items():
                    writer.writerow([table.title, model, column, f"{mean:.6f}", "" if std is None else f"{std:.6f}"])
    (out / "results.md").write_text("\n\n".join(t.markdown() for t in tables) + "\n", encoding="utf-8")


def load_tables(results: Path) -> list[Table]:
    data = json.loads((results / "results.json").read_text(encoding="utf-8"))
    return [Table(**t) for t in data["tables"]]


def _save(figure, stem: Path) -> list[Path]:
    """Write the figure as PNG and SVG and release it."""
    paths = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
    for path in paths:
        figure.savefig(path, dpi=150, bbox_inches="tight")
    _pyplot().close(figure)
    return paths


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    return plt


def line_plot(table: Table, stem: Path, xlabel: str) -> list[Path]:
    """One line per model across the table's columns (e.g. MAP against pool size)."""
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(6, 4))
    for model, cells in table.rows.items():
        xs = [c for c in table.columns if c in cells]
        means = [cells[c][0] * table.scale for c in xs]
        stds = [(cells[c][1] or 0) * table.scale for c in xs]
        axis.errorbar(xs, means, yerr=stds, marker="o", capsize=3, label=model)
    axis.set_xlabel(xlabel)
    axis.set_ylabel(table.title.split(":")[0])
    axis.set_title(table.title)
    axis.grid(alpha=0.3)
    axis.legend()
    return _save(figure, stem)


def bar_plot(table: Table, stem: Path) -> list[Path]:
    """Grouped bars: columns (e.g. fields) on the x axis, one bar per model."""
    import numpy as np

    plt = _pyplot()
    models = list(table.rows)
    x = np.arange(len(table.columns))
    width = 0.8 / max(1, len(models))
    figure, axis = plt.subplots(figsize=(max(6, 0.6 * len(table.columns) * max(1, len(models)) / 2), 4))
    for i, model in enumerate(models):
        values = [table.rows[model].get(c, [0.0])[0] * table.scale for c in table.columns]
        axis.bar(x + i * width - 0.4 + width / 2, values, width, label=model)
    axis.set_xticks(x, table.columns, rotation=45, ha="right")
    axis.set_title(table.title)
    axis.grid(axis="y", alpha=0.3)
    axis.legend()
    return _save(figure, stem)


def heatmap(table: Table, stem: Path) -> list[Path]:
    """Models × columns (e.g. candidate types) as a heatmap with the values written in."""
    import numpy as np

    plt = _pyplot()
    models = list(table.rows)
    values = np.array([[table.rows[m].get(c, [np.nan])[0] * table.scale for c in table.columns] for m in models])
    figure, axis = plt.subplots(figsize=(1.2 * len(table.columns) + 2, 0.6 * len(models) + 1.5))
    image = axis.imshow(values, cmap="viridis", aspect="auto")
    axis.set_xticks(range(len(table.columns)), table.columns, rotation=30, ha="right")
    axis.set_yticks(range(len(models)), models)
    for i in range(len(models)):
        for j in range(len(table.columns)):
            if not np.isnan(values[i, j]):
                axis.text(
                    j,
                    i,
                    f"{values[i, j]:.1f}",
                    ha="center",
                    va="center",
                    color="white" if values[i, j] < np.nanmean(values) else "black",
                )
    figure.colorbar(image, ax=axis)
    axis.set_title(table.title)
    return _save(figure, stem)


def draw(tables: list[Table], out: Path) -> list[Path]:
    """Every table's figure (PNG and SVG) in ``out``; what ``citegraph report`` redraws."""
    paths = []
    for table in tables:
        stem = Path(out) / table.name
        if table.figure == "line":
            paths += line_plot(table, stem, table.xlabel)
        elif table.figure == "bar":
            paths += bar_plot(table, stem)
        elif table.figure == "heatmap":
            paths += heatmap(table, stem)
    return paths
