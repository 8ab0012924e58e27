"""Logins under a campaign's first morning (issue 36, 1 and 2) on a real ``assess serve`` with
argon2's default cost: twenty assessors behind one address log in at once, and an attacker's
wrong guesses from one address cost only that address. Statuses only (never a timing): the
p95 of saves is measured by ``benchmarks/bench_first_morning.py``."""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path

from argon2 import PasswordHasher

from inexeval.assess.store import Store
from tests.assess.conftest import PASSWORD, init_store
from tests.assess.test_attack import client, log_in, serving

LAB = 20


def _campaign(store_url: str, files: dict[str, Path]) -> str:
    init_store(store_url, files)
    hashed = PasswordHasher().hash(PASSWORD)
    with Store.open(store_url) as store:
        for k in range(LAB):
            store.add_user(f"assessor{k}", hashed, False, "test")
            store.assign(f"assessor{k}", ["1"], "test")
    return store_url


def _at_once(count: int, login: object) -> Counter[int]:
    statuses: Counter[int] = Counter()
    start = threading.Barrier(count)

    def one(k: int) -> None:
        start.wait()
        statuses[login(k).status_code] += 1  # type: ignore[operator]

    threads = [threading.Thread(target=one, args=(k,)) for k in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


def test_twenty_assessors_behind_one_address_log_in_at_once(
        store_url: str, campaign_files: dict[str, Path]) -> None:
    """63 of them were 503 (two checks queued beyond the two running) and, after retries, two
    right passwords 429 (counted against the address before being checked). Now they wait
    their turn, one check at a time for the address, and a right password never counts."""
    store = _campaign(store_url, campaign_files)
    with serving(store) as server:
        def login(k: int) -> object:
            with client(server.url) as http:
                return log_in(http, f"assessor{k}")

        assert _at_once(LAB, login) == Counter({200: LAB})
        # again (a second burst, the free failures of the address untouched)
        assert _at_once(LAB, login) == Counter({200: LAB})


def test_an_attack_from_one_address_costs_only_that_address(
        store_url: str, campaign_files: dict[str, Path]) -> None:
    """During 40 wrong logins from an attacker's address a user elsewhere got 503 in 0.02 s:
    the attacker filled the queue. Now the attacker holds one check at a time (its held
    turns here 1 second each, ``serve --address-hold 1``, to keep the test short)."""
    store = _campaign(store_url, campaign_files)
    with serving(store, "--address-hold", "1") as server:
        users: Counter[int] = Counter()
        under_way = threading.Event()

        def attack(k: int) -> object:
            with client(server.url, "127.0.0.66") as http:
                response = log_in(http, f"assessor{k % LAB}", "guess")
            under_way.set()
            return response

        def user() -> None:  # once the attack's first answer is in, from elsewhere
            under_way.wait()
            with client(server.url, "127.0.0.7") as http:
                users[log_in(http, "assessor3").status_code] += 1

        elsewhere = threading.Thread(target=user)
        elsewhere.start()
        statuses = _at_once(40, attack)
        elsewhere.join()
        assert set(statuses) <= {401, 429, 503} and statuses[401] >= 1, statuses
        assert users == Counter({200: 1})
        with client(server.url) as http:  # the lab's address is not the attacker's
            assert log_in(http, "assessor1").status_code == 200


def test_one_address_cannot_fill_the_login_queue() -> None:
    # an address over its failure limit holds its turn a while at each login (review of
    # issue 36's change): its logins beyond most_per_address are Crowded (429) at once, so the
    # queue's places stay free for the other addresses, whose turns come at once
    import asyncio

    from inexeval.assess.api import Busy, Crowded, PasswordChecks

    checks = PasswordChecks(PasswordHasher(time_cost=1, memory_cost=8, parallelism=1),
                            most_waiting=20, most_per_address=5)

    async def hold(address: str) -> str:
        try:
            async with checks.turn(address):
                await asyncio.sleep(0.3)
        except Crowded:
            return "crowded"
        except Busy:
            return "busy"
        return "checked"

    async def attack() -> tuple[Counter[str], str, float]:
        attacker = [asyncio.create_task(hold("6.6.6.6")) for _ in range(40)]
        await asyncio.sleep(0.05)
        loop = asyncio.get_running_loop()
        started = loop.time()
        other = await hold("10.0.0.1")
        waited = loop.time() - started
        return Counter(await asyncio.gather(*attacker)), other, waited

    # in a thread of its own: the session's browser (Playwright's synchronous API) holds an
    # event loop in this one
    done: list[tuple[Counter[str], str, float]] = []
    worker = threading.Thread(target=lambda: done.append(asyncio.run(attack())))
    try:
        worker.start()
        worker.join()
    finally:
        checks.close()
    [(outcomes, other, waited)] = done
    assert outcomes == {"checked": 5, "crowded": 35}
    assert other == "checked" and waited < 0.5
