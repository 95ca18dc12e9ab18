"""The steps of a benchmark's series, with the levels on both sides: asv's ``regressions.json`` records the best value
after a jump, not the level right after it, so a step that later releases undid would look smaller."""

from dataclasses import dataclass

from ..asvtools import results


@dataclass(frozen=True)
class Piece:
    left: int  # the first revision
    right: int  # after the last
    level: float


@dataclass(frozen=True)
class Step:
    rev_before: int
    rev_after: int
    before: float
    after: float

    @property
    def relative(self) -> float:
        return self.after / self.before - 1 if self.before else float("inf")


def pieces(points: list[tuple[int, float | None]]) -> list[Piece]:
    """``detect_steps`` over (revision, value) points."""
    points = sorted(points)
    revisions = [rev for rev, _ in points]
    values = [value for _, value in points]
    if not any(value is not None and value == value for value in values):
        return []
    return [
        Piece(revisions[left], revisions[right - 1] + 1, level)
        for left, right, level, _min, _err in results.detect_steps(values)
    ]


def true_step(points: list[tuple[int, float | None]], rev_before: int, rev_after: int, value_before: float) -> Step:
    """The levels of the pieces on both sides of asv's jump, or the value at ``rev_after`` where they join."""
    after_piece = next((piece for piece in pieces(points) if piece.left <= rev_after < piece.right), None)
    joined = after_piece is None or after_piece.left <= rev_before
    after = dict(points).get(rev_after) if joined else after_piece.level
    return Step(rev_before, rev_after, value_before, value_before if after is None else after)
