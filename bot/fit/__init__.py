"""The fix that fits a paste, and the record that fits it among near-duplicates. Pure.

:mod:`bot.fit.order` orders a record's workarounds by what the paste shows (its
settings, versions, system and hardware) and says why the first comes first;
:mod:`bot.fit.duplicates` answers with the most general of a record's variants
when the paste names nothing that tells them apart, and says it fits several.
"""
