"""Policies written in Python, as templates for your own: each is a class that gridsim builds
once per run (with the run's parameters as keywords) and asks at every decision point.

>>> import gridsim
>>> from gridsim.policies import GuidedSelfScheduling
>>> study = gridsim.run("my.toml", policies={"py_gss": GuidedSelfScheduling})

A bag-of-tasks policy has ``chunk(self, view) -> int`` (``view`` is a :class:`gridsim.ChunkView`);
a batch policy has ``schedule(self, view) -> list[int]`` (``view`` is a :class:`gridsim.BatchView`,
the answer the log's ids of the queued jobs to start now). A class declares its parameters in
``params`` (name -> default, or -> dict with ``default``, ``min``, ``max``, ``meaning``, ``unit``);
an experiment file sets them as it sets any scheduler's. See docs/python.md, "Policies in Python".

Both policies here make the decisions of gridsim's own ``gss`` and ``easy`` (the tests check
it run by run), so they are also the reference for what a view holds.
"""

from typing import List

__all__ = ["GuidedSelfScheduling", "EasyBackfilling"]


class GuidedSelfScheduling:
    """guided self-scheduling (Polychronopoulos and Kuck 1987): max(k, ceil(R/P)) tasks"""

    params = {"min_chunk": {"default": 1, "min": 1, "meaning": "minimum chunk k", "unit": "tasks"}}

    def __init__(self, min_chunk: int = 1) -> None:
        self.min_chunk = min_chunk

    def chunk(self, view) -> int:
        remaining = view.remaining
        # ceil(R / P) in integers: -(-R // P).
        return min(remaining, max(self.min_chunk, -(-remaining // view.workers)))


class EasyBackfilling:
    """EASY backfilling (Lifka 1995): a reservation for the first job that does not fit, later
    jobs start if they do not delay it"""

    def schedule(self, view) -> List[int]:
        free = view.free
        if free == 0:
            return []
        queue = view.queue
        ids = []
        # Jobs start in queue order while the next one fits.
        head = 0
        for job in queue:
            if job.size > free:
                break
            free -= job.size
            ids.append(job.id)
            head += 1
        if head == len(queue) or free == 0:
            return ids
        # Backfill candidates: later jobs that fit in the free units (which only decrease), in
        # queue order. Without any, the reservation need not be computed.
        candidates = [job for job in queue[head + 1 :] if job.size <= free]
        if not candidates:
            return ids
        need = queue[head].size
        now = view.now
        # The shadow time: planned releases in date order (equal dates by job index) until the
        # head fits; units released at that same date count towards the extra units too.
        releases = [(r.planned_end_s if r.planned_end_s > now else now, r.index, r.size) for r in view.running]
        releases += [(now + job.request_s, job.index, job.size) for job in queue[:head]]
        releases.sort()
        available = free
        shadow = float("inf")
        for date, _, units in releases:
            if available >= need and date > shadow:
                break
            available += units
            if available >= need and shadow == float("inf"):
                shadow = date
        extra = max(available - need, 0)
        # Backfilling until the free units run out: a job that ends by the shadow time, or that
        # uses only extra units.
        for job in candidates:
            if free == 0:
                break
            if job.size > free:
                continue
            if now + job.request_s <= shadow:
                free -= job.size
                ids.append(job.id)
            elif job.size <= extra:
                free -= job.size
                extra -= job.size
                ids.append(job.id)
        return ids
