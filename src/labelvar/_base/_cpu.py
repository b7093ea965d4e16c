"""How many CPUs are free right now: the thread count of a parallel pass on a busy machine.

A parallel pass on two threads waits at its end for the slower thread; when another
process holds a core, that thread runs half the time and the pass takes longer than on
one thread. :func:`free_cpus` reads the number of runnable threads on the machine from
``/proc/loadavg`` (an instantaneous count, not the 1-minute average), takes away this
process's own runnable threads, and returns the CPUs left to this process (at least 1).

Where ``/proc`` does not describe this process's CPUs (not Linux; a container whose
``/proc`` shows a host with more CPUs than the process may use), it returns the CPUs
the process may use, as before.
"""

from __future__ import annotations

import os


def _allowed() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def _own_running() -> int:
    """Threads of this process in state R (running or runnable)."""
    n = 0
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return 1
    for t in tasks:
        try:
            with open(f"/proc/self/task/{t}/stat", "rb") as f:
                stat = f.read()
        except OSError:  # the thread ended
            continue
        # "pid (comm) S ...": the state follows the last ')' (comm may hold spaces)
        if stat[stat.rfind(b")") + 2:stat.rfind(b")") + 3] == b"R":
            n += 1
    return max(n, 1)


def free_cpus() -> int:
    """CPUs this process may use that no other process's runnable thread holds (>= 1).

    Examples
    --------
    >>> 1 <= free_cpus() <= (os.cpu_count() or 1)
    True
    """
    allowed = _allowed()
    if allowed <= 1:
        return 1
    try:
        with open("/proc/loadavg", "rb") as f:
            running = int(f.read().split()[3].split(b"/")[0])
    except (OSError, IndexError, ValueError):
        return allowed
    return free_of(allowed, os.cpu_count() or allowed, running, _own_running())


def free_of(allowed: int, machine: int, running: int, own: int) -> int:
    """CPUs free for this process: ``allowed`` less the runnable threads not its ``own``.

    ``machine`` is the CPUs ``/proc/loadavg`` counts over; when the process may use fewer
    (a CPU set), the count says nothing of its CPUs and every allowed CPU is returned.

    Examples
    --------
    >>> free_of(2, 2, 1, 1), free_of(2, 2, 2, 1), free_of(2, 2, 5, 2), free_of(2, 64, 40, 1)
    (2, 1, 1, 2)
    """
    if machine > allowed:
        return allowed
    others = max(running - own, 0)
    return max(1, min(allowed, allowed - others))
