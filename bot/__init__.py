"""errkb: answers pasted errors from a team's error knowledge base.

NumPy's bundled OpenBLAS starts a thread per processor when it is imported, and
those threads spin while they wait: a one-shot command pays for it in CPU time,
and a server whose requests run on threads of their own gains nothing from it
(errkb's arrays are a few thousand numbers). One thread is the default here;
``OPENBLAS_NUM_THREADS`` set in the environment wins.
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
