"""Who may do what. Maintainers come from ``ERRKB_MAINTAINERS`` and a Slack user group;
domain owners from ``ERRKB_DOMAIN_OWNERS``, for the domain a record has *as stored*.

Asking Slack who is in the group is a call, so it is made where a use case
decides it needs it (:func:`maintainers`), never inside a yes/no question;
:func:`may_act` is plain logic over what was found.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from bot.settings import Settings


class GroupSource(Protocol):
    def group_members(self, group_id: str) -> frozenset[str]: ...


def maintainers(settings: Settings, slack: GroupSource) -> frozenset[str]:
    """Every maintainer: the listed users and the members of the maintainer group."""
    found = settings.maintainer_ids
    if settings.maintainer_group:
        found = found | slack.group_members(settings.maintainer_group)
    return found


def may_act(
    user: str,
    domain: str | None,
    *,
    maintainers: frozenset[str],
    owners: Mapping[str, Sequence[str]],
) -> bool:
    """Maintainers act on any record; an owner only on records of a domain they own."""
    return user in maintainers or (domain is not None and user in owners.get(domain, ()))
