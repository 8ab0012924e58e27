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
    the attacker filled the queue. Now the attacker holds one check at a time."""
    store = _campaign(store_url, campaign_files)
    with serving(store) as server:
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
