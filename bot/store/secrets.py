"""Installation tokens encrypted at rest, with a key from the environment.

A multi-workspace install keeps every workspace's bot token and refresh token
(and a user token, if any) in the database. :class:`TokenCipher` encrypts
each with Fernet (AES-128-CBC with an HMAC-SHA256, from the ``cryptography``
package) under ``ERRKB_SECRET_KEY``; keys in ``ERRKB_SECRET_KEY_PREVIOUS``
still decrypt, so a key is rotated by moving it there and setting a new one
(a ``MultiFernet``: the first key encrypts, any decrypts). A stored value is
``fernet:`` followed by the Fernet token, so an encrypted value is told from a
plain one without trying keys. :class:`EncryptedInstallationStore` wraps
slack_sdk's installation store: tokens are encrypted on their way in and
decrypted on their way out, and nothing else of the store changes.

Without the right key a stored token cannot be read: the store then finds no
installation (one log line, naming no token), and the workspace's requests
are refused as from a workspace errkb is not installed in.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Sequence
from typing import Any, TypeVar

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from slack_sdk.oauth.installation_store import Bot, Installation, InstallationStore

from bot.throttle import LogThrottle

log = logging.getLogger(__name__)

PREFIX = "fernet:"
#: Seconds between two log lines about tokens no key decrypts.
LOG_EVERY = 60.0
#: The token attributes of slack_sdk's Installation and Bot that are encrypted.
TOKEN_FIELDS = ("bot_token", "bot_refresh_token", "user_token", "user_refresh_token")

T = TypeVar("T", Installation, Bot)


def _keys(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def check_keys(text: str) -> None:
    """Raise ValueError (naming no key) unless ``text`` is one or more Fernet keys, comma
    separated."""
    keys = _keys(text)
    if not keys:
        raise ValueError("empty: expected a Fernet key")
    for n, key in enumerate(keys, 1):
        try:
            Fernet(key)
        except (ValueError, TypeError):
            where = f"key {n} of {len(keys)} " if len(keys) > 1 else ""
            raise ValueError(
                f"{where}is not a Fernet key (32 url-safe base64-encoded bytes)"
            ) from None


class TokenCipher:
    """Encrypts with the current key, decrypts with it or any previous one."""

    def __init__(self, current: str, previous: Sequence[str] = ()) -> None:
        self._fernet = MultiFernet([Fernet(current), *(Fernet(k) for k in previous)])

    @classmethod
    def from_settings(cls, current: str, previous: str | None) -> TokenCipher:
        return cls(current, _keys(previous or ""))

    def encrypt(self, value: str) -> str:
        return PREFIX + self._fernet.encrypt(value.encode()).decode()

    def decrypt(self, stored: str) -> str:
        """The plain value; a value stored before encryption (no prefix) is returned as it is.
        Raises :class:`cryptography.fernet.InvalidToken` when no key decrypts it."""
        if not stored.startswith(PREFIX):
            return stored
        return self._fernet.decrypt(stored[len(PREFIX) :].encode()).decode()

    @staticmethod
    def encrypted(stored: str | None) -> bool:
        return stored is None or stored.startswith(PREFIX)


def _mapped(entity: T, change: Any) -> T:
    """A copy of ``entity`` with each token attribute it has passed through ``change``."""
    found = copy.copy(entity)
    for name in TOKEN_FIELDS:
        value = getattr(found, name, None)
        if isinstance(value, str) and value:
            setattr(found, name, change(value))
    return found


class EncryptedInstallationStore(InstallationStore):
    """slack_sdk's installation store, its tokens encrypted at rest (see the module's docstring).

    Look-ups go to ``inner``; saves and deletes to ``writes`` when given (the same tables
    through an engine whose transactions are write units), else to ``inner`` too."""

    def __init__(
        self,
        inner: InstallationStore,
        cipher: TokenCipher,
        *,
        writes: InstallationStore | None = None,
    ) -> None:
        self.inner = inner
        self.writes = inner if writes is None else writes
        self.cipher = cipher
        self._unreadable = LogThrottle(LOG_EVERY)  # each request of that workspace meets it

    @property
    def logger(self) -> logging.Logger:
        return self.inner.logger

    def save(self, installation: Installation) -> None:
        # slack_sdk also saves installation.to_bot(): built from the encrypted copy
        self.writes.save(_mapped(installation, self.cipher.encrypt))

    def save_bot(self, bot: Bot) -> None:
        self.writes.save_bot(_mapped(bot, self.cipher.encrypt))

    def find_bot(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        is_enterprise_install: bool | None = False,
    ) -> Bot | None:
        found = self.inner.find_bot(
            enterprise_id=enterprise_id,
            team_id=team_id,
            is_enterprise_install=is_enterprise_install,
        )
        return self._readable(found, team_id)

    def find_installation(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None = None,
        is_enterprise_install: bool | None = False,
    ) -> Installation | None:
        found = self.inner.find_installation(
            enterprise_id=enterprise_id,
            team_id=team_id,
            user_id=user_id,
            is_enterprise_install=is_enterprise_install,
        )
        return self._readable(found, team_id)

    def _readable(self, found: T | None, team_id: str | None) -> T | None:
        if found is None:
            return None
        try:
            return _mapped(found, self.cipher.decrypt)
        except InvalidToken:
            unreadable = self._unreadable.due()
            if unreadable:
                log.error(
                    "%d installation look-up(s) found tokens that ERRKB_SECRET_KEY and "
                    "ERRKB_SECRET_KEY_PREVIOUS cannot decrypt: treated as not installed",
                    unreadable,
                    extra={"request_team": team_id},
                )
            return None

    def delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        self.writes.delete_bot(enterprise_id=enterprise_id, team_id=team_id)

    def delete_installation(
        self, *, enterprise_id: str | None, team_id: str | None, user_id: str | None = None
    ) -> None:
        self.writes.delete_installation(
            enterprise_id=enterprise_id, team_id=team_id, user_id=user_id
        )

    def delete_all(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        self.writes.delete_all(enterprise_id=enterprise_id, team_id=team_id)


__all__ = ["PREFIX", "TOKEN_FIELDS", "EncryptedInstallationStore", "TokenCipher", "check_keys"]
