"""``needing`` masks are per thread: one thread's mask never reaches another's rules."""

from __future__ import annotations

import threading

from ms_ops import needing, wanted


def test_masks_of_two_threads_stay_apart_and_unwind():
    inside = threading.Barrier(2)
    leaving = threading.Barrier(2)
    seen = {}

    def run(name, mask, first_out):
        with needing(mask):
            inside.wait()
            seen[name] = (wanted(0), wanted(1))
            if not first_out:
                leaving.wait()  # the other thread leaves its block first
        if first_out:
            leaving.wait()
        seen[name + " after"] = (wanted(0), wanted(1))

    threads = [threading.Thread(target=run, args=("a", (True, False), True)),
               threading.Thread(target=run, args=("b", (False, True), False))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == {"a": (True, False), "b": (False, True),
                    "a after": (True, True), "b after": (True, True)}
    assert wanted(0) and wanted(1)
