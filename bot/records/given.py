"""A pydantic base for nested objects that write back exactly what they were given."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, PrivateAttr, model_serializer, model_validator


class GivenKeys(BaseModel):
    """Writes back the keys it was given, in the order given: no invented defaults on
    export, and an object read with ``how`` before ``action`` keeps that order."""

    _order: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="wrap")
    @classmethod
    def _remember_order(cls, data: Any, handler: Any) -> Any:
        made = handler(data)
        if isinstance(data, dict) and isinstance(made, GivenKeys):
            made._order = tuple(k for k in data if isinstance(k, str))
        return made

    @model_serializer(mode="wrap")
    def _given_keys(self, handler: Any) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        fields = type(self).model_fields
        kept = {k: v for k, v in data.items() if k not in fields or k in self.model_fields_set}
        return {**{k: kept[k] for k in self._order if k in kept}, **kept}
