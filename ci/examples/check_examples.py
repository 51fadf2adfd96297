#!/usr/bin/env python3
"""Checks the CI examples in this folder: each parses as YAML, and each shards the nightly
campaign consistently (the job count the CI system runs is the one the merge expects, every
shard job runs ci/nightly.sh with its reports apart, and a merge job runs `statecheck report
merge`). Prints what is wrong, naming the file, and exits 1; prints one line and exits 0 when
all hold. Needs python3's yaml (Debian's python3-yaml; ci/setup.sh installs it).

  python3 ci/examples/check_examples.py [DIR]   (default: the folder this script is in)
"""
import os
import sys

import yaml

problems = []


def need(cond, file, what):
    if not cond:
        problems.append(f"{file}: {what}")
    return cond


def scripts_of(job):
    s = job.get("script", [])
    return "\n".join(s if isinstance(s, list) else [s])


def check_github(path, doc):
    shards = int(doc["env"]["SHARDS"])
    campaign = doc["jobs"]["campaign"]
    matrix = campaign["strategy"]["matrix"]["shard"]
    need(matrix == list(range(shards)), path, f"the matrix {matrix} is not 0 … SHARDS-1 ({shards})")
    steps = campaign["steps"]
    nightly = [s for s in steps if "ci/nightly.sh" in str(s.get("run", ""))]
    if need(len(nightly) == 1, path, "no campaign step runs ./ci/nightly.sh"):
        env = nightly[0].get("env", {})
        need("matrix.shard" in str(env.get("STATECHECK_SHARD", "")), path,
             "the campaign step's STATECHECK_SHARD does not name the matrix's shard")
    merge = doc["jobs"]["merge"]
    need(merge.get("needs") == "campaign", path, "the merge job does not need the campaign")
    need(any("statecheck report merge" in str(s.get("run", "")) for s in merge["steps"]), path,
         "the merge job runs no `statecheck report merge`")


def check_gitlab(path, doc):
    jobs = {k: v for k, v in doc.items() if isinstance(v, dict) and "script" in v}
    campaign = [k for k, v in jobs.items() if "ci/nightly.sh" in scripts_of(v)]
    if not need(len(campaign) == 1, path, "no job (or more than one) runs ./ci/nightly.sh"):
        return
    job = jobs[campaign[0]]
    parallel = job.get("parallel")
    need(isinstance(parallel, int) and 2 <= parallel <= 200, path,
         f"job {campaign[0]}: parallel is {parallel!r}, not a job count from 2 to 200")
    need("CI_NODE_INDEX" in scripts_of(job), path,
         f"job {campaign[0]}: the shards' artifacts are not kept apart by CI_NODE_INDEX")
    merges = [k for k, v in jobs.items() if "statecheck report merge" in scripts_of(v)]
    if need(len(merges) == 1, path, "no job runs `statecheck report merge`"):
        needs = jobs[merges[0]].get("needs", [])
        names = [n["job"] if isinstance(n, dict) else n for n in needs]
        need(campaign[0] in names, path, f"job {merges[0]} does not need {campaign[0]}")
        stages = doc.get("stages", [])
        need(stages.index(jobs[merges[0]]["stage"]) > stages.index(job["stage"]), path,
             "the merge job's stage does not come after the campaign's")


def env_of(container):
    return {e["name"]: e.get("value") for e in container.get("env", [])}


def check_kubernetes(path, docs):
    jobs = [d for d in docs if d and d.get("kind") == "Job"]
    indexed = [j for j in jobs if j["spec"].get("completionMode") == "Indexed"]
    if not need(len(indexed) == 1, path, "no Indexed Job (or more than one)"):
        return
    spec = indexed[0]["spec"]
    container = spec["template"]["spec"]["containers"][0]
    count = env_of(container).get("STATECHECK_SHARD_COUNT")
    need(str(spec.get("completions")) == str(count), path,
         f"completions {spec.get('completions')} is not STATECHECK_SHARD_COUNT {count}")
    need(spec.get("parallelism", 1) <= spec.get("completions", 1), path,
         "parallelism exceeds completions")
    args = "\n".join(container.get("args", []))
    need("ci/nightly.sh" in args and "JOB_COMPLETION_INDEX" in args, path,
         "the Indexed Job does not run ./ci/nightly.sh with its reports apart by "
         "JOB_COMPLETION_INDEX")
    merge = [j for j in jobs if j is not indexed[0]]
    if need(len(merge) == 1, path, "no merge Job beside the Indexed Job"):
        c = merge[0]["spec"]["template"]["spec"]["containers"][0]
        need("statecheck report merge" in "\n".join(c.get("args", [])), path,
             "the merge Job runs no `statecheck report merge`")
        need(env_of(c).get("STATECHECK_SHARD_COUNT") == count, path,
             "the merge Job waits for another shard count than the Indexed Job runs")
    claims = {d["metadata"]["name"] for d in docs if d and d.get("kind") == "PersistentVolumeClaim"}
    for j in jobs:
        for v in j["spec"]["template"]["spec"].get("volumes", []):
            name = v.get("persistentVolumeClaim", {}).get("claimName")
            need(name in claims, path, f"Job {j['metadata']['name']} mounts claim {name}, "
                 "which the file does not declare")


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    checks = {
        "github-actions.yml": lambda p, d: check_github(p, d[0]),
        "gitlab-ci.yml": lambda p, d: check_gitlab(p, d[0]),
        "kubernetes-indexed-job.yaml": check_kubernetes,
    }
    for name, check in checks.items():
        path = os.path.join(folder, name)
        try:
            with open(path, encoding="utf-8") as f:
                docs = list(yaml.safe_load_all(f))
        except (OSError, yaml.YAMLError) as e:
            problems.append(f"{path}: {e}")
            continue
        try:
            check(path, docs)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
            problems.append(f"{path}: not the shape of this example ({type(e).__name__}: {e})")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"{len(checks)} CI examples parse and shard consistently")
    return 0


if __name__ == "__main__":
    sys.exit(main())
