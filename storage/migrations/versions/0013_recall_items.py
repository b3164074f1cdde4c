"""Open recall items: the item table accepts the kind ``recall``.

A recall item (one open question per disease x aspect) is stored like a choice item: its gold
list in ``answer_keys``, its question in ``text``, its aspect, synonyms and lineage in
``lineage``. Only the CHECK on ``item.kind`` changes; answers to recall items are ordinary
``response`` rows (raw text kept, scores recomputed from it).

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("item") as batch:
        batch.drop_constraint("ck_item_kind", type_="check")
        batch.create_check_constraint("ck_item_kind", "kind IN ('statement', 'choice', 'recall')")


def downgrade() -> None:
    op.execute("DELETE FROM response WHERE item_id IN (SELECT id FROM item WHERE kind = 'recall')")
    op.execute(
        "DELETE FROM assignment_items WHERE item_id IN (SELECT id FROM item WHERE kind = 'recall')"
    )
    op.execute("DELETE FROM item WHERE kind = 'recall'")
    with op.batch_alter_table("item") as batch:
        batch.drop_constraint("ck_item_kind", type_="check")
        batch.create_check_constraint("ck_item_kind", "kind IN ('statement', 'choice')")
