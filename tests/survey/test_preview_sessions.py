"""generator/preview.py: the preview runs the rendered cleaner on a handful of sessions, not the first
only (issue 35, defect 7: "the preview shows the first session only", so a loss in a later file was
never shown before the render)."""

from __future__ import annotations

import json
from pathlib import Path

from generator.infer import infer
from generator.preview import MAX_PREVIEW_FILES, format_preview, run_preview


def _chat(n: int, extra: dict | None = None) -> list[dict]:
    return [{"role": "user", "text": f"Please reset router number {n} now.", "ts": "2026-05-16T09:00:00Z"},
            {"role": "assistant", "text": f"Router {n} has been reset for you.", "ts": "2026-05-16T09:00:05Z",
             **(extra or {})}]


def _write(folder: Path, n: int, records: list[dict]) -> None:
    (folder / f"chat{n}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def test_every_previewed_session_counts_and_a_later_loss_is_shown(tmp_path):
    for n in range(3):
        _write(tmp_path, n, _chat(n))
    mapping = infer([str(tmp_path)]).mapping
    # the third file holds prose the mapping reads nowhere
    _write(tmp_path, 2, _chat(2, {"note": "The customer said the router was already reset twice this week."}))
    preview = run_preview(mapping, [tmp_path])
    assert preview.sessions == 3 and preview.roles["user"] == 3
    assert any("`note`" in str(loss) for loss in preview.losses), preview.losses
    assert "sessions previewed: 3" in format_preview(preview)


def test_the_preview_is_bounded(tmp_path):
    for n in range(MAX_PREVIEW_FILES + 5):
        _write(tmp_path, n, _chat(n))
    preview = run_preview(infer([str(tmp_path)]).mapping, [tmp_path])
    assert preview.sessions == MAX_PREVIEW_FILES
