"""Batch results are published whole: readers see the old results until the new are complete."""

import numpy as np

from dedup_pipeline import results


def test_published_results_replace_the_previous_run(mongo_db):
    for ids in ([1, 2], [3, 4]):
        run = results.new_run(mongo_db, {"k": 3})
        results.write_matches(mongo_db, run, ids, np.array([0]), np.array([1]), np.array([2]))
        results.write_groups(mongo_db, run, [ids])
        results.publish(mongo_db, run, results.RESULTS, {"rows": 2})
    assert [(m["a"], m["b"]) for m in mongo_db.matches.find()] == [(3, 4)]
    assert results.current_run(mongo_db)["_id"] == run


def test_a_run_killed_while_building_leaves_the_previous_results_and_is_cleared(mongo_db):
    run = results.new_run(mongo_db, {})
    results.write_groups(mongo_db, run, [[1, 2]])
    results.publish(mongo_db, run, results.RESULTS, {"rows": 2})
    dead = results.new_run(mongo_db, {})
    results.write_groups(mongo_db, dead, [[7, 8]])  # ...and the process dies here
    assert [g["rows"] for g in mongo_db.groups.find()] == [[1, 2]]
    results.new_run(mongo_db, {})
    assert results.staged("groups", dead) not in mongo_db.list_collection_names()


def test_a_run_killed_while_publishing_is_rolled_forward(mongo_db):
    run = results.new_run(mongo_db, {})
    results.write_groups(mongo_db, run, [[5, 6]])
    results.write_matches(mongo_db, run, [5, 6], np.array([0]), np.array([1]), np.array([1]))
    mongo_db.runs.update_one({"_id": run}, {"$set": {"state": "publishing", "names": list(results.RESULTS),
                                                     "summary": {}, "finished_at": None}})
    mongo_db[results.staged("groups", run)].rename("groups")  # one rename done, then killed
    results.new_run(mongo_db, {})
    assert mongo_db.matches.count_documents({}) == 1
    assert mongo_db.runs.find_one({"_id": run})["state"] == "done"
