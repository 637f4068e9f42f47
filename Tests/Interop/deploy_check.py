#!/usr/bin/env python3
"""Checks deploy/ against the code and the README: every YAML file parses, every SPOTTER_* variable
it (or the Containerfile and the env examples) sets is one the README's configuration table
documents, the migration Job runs the Deployment's image, and the probes ask `spotterctl health`.

    deploy_check.py

Prints one line per check and `deploy: N of N checks passed`; exits 0 when all pass.
"""

import pathlib
import re
import sys

import yaml

from checks import Checks

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main():
    check = Checks()
    deploy = ROOT / "deploy"
    documents = {}
    for path in sorted(deploy.glob("**/*.yaml")):
        try:
            documents[path.relative_to(ROOT)] = [d for d in yaml.safe_load_all(path.read_text()) if d]
            check(f"{path.relative_to(ROOT)} parses", True)
        except yaml.YAMLError as error:
            check(f"{path.relative_to(ROOT)} parses", False, error)

    readme = (ROOT / "README.md").read_text()
    documented = set(re.findall(r"^\| `(SPOTTER_[A-Z0-9_]+)`", readme, re.M))
    documented |= {name for row in re.findall(r"^\| `SPOTTER_[^|]*\|", readme, re.M)
                   for name in re.findall(r"SPOTTER_[A-Z0-9_]+", row)}
    used = set()
    for path in list(deploy.glob("**/*.yaml")) + list(deploy.glob("*.example")) + [deploy / "Containerfile",
                                                                                   deploy / "spotterd.service"]:
        used |= set(re.findall(r"\b(SPOTTER_[A-Z0-9_]+)\b", path.read_text()))
    # compose's own: the owner's and spotterd's passwords for deploy/roles.sql
    used -= {"SPOTTER_OWNER_PASSWORD", "SPOTTER_SERVER_PASSWORD"}
    undocumented = sorted(used - documented)
    check(f"every SPOTTER_* variable deploy/ sets ({len(used)}) is in the README's configuration table",
          not undocumented, undocumented)

    kinds = {d["kind"]: d for docs in documents.values() for d in docs if isinstance(d, dict) and "kind" in d}
    deployment, job = kinds.get("Deployment"), kinds.get("Job")
    check("deploy/k8s has a Deployment, a migration Job, a Service and a PodDisruptionBudget",
          all(k in kinds for k in ["Deployment", "Job", "Service", "PodDisruptionBudget"]), sorted(kinds))
    if deployment and job:
        container = deployment["spec"]["template"]["spec"]["containers"][0]
        migrate = job["spec"]["template"]["spec"]["containers"][0]
        check("the migration Job runs the Deployment's image", container["image"] == migrate["image"])
        check("the Job runs `spotterctl migrate apply`", migrate.get("command") == ["spotterctl", "migrate", "apply"])
        for probe in ["readinessProbe", "livenessProbe"]:
            command = " ".join(container.get(probe, {}).get("exec", {}).get("command", []))
            check(f"the {probe} asks `spotterctl health`", "spotterctl health" in command, command)
        check("replicas do not migrate on start",
              kinds["ConfigMap"]["data"].get("SPOTTER_MIGRATE_ON_START") == "false")
    return check.finish("deploy")


if __name__ == "__main__":
    sys.exit(main())
