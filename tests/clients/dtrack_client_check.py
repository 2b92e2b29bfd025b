"""Drives a running Outpost's Dependency-Track API with real PyPI clients.

Bootstraps as upstream's Go client tests do (change the admin password, log in, create a team,
grant permissions, create an API key) with plain HTTP, then uses `dtrack-auditor` to upload a
CycloneDX BOM and read projects, findings and violations, `dependency-track-client` to read
projects, components, violations and project properties, and `dependency-track-api` for the
version, ACL mappings and analysis decisions.

Usage: dtrack_client_check.py BASE_URL BOM_FILE
"""

import sys

import requests
from dependency_track_api import DependencyTrack as DtApi
from dependencytrack_client import DependencyTrack as DtClient
from dtrackauditor.auditor import Auditor, DTrackClient

base, bom_file = sys.argv[1], sys.argv[2]
# At higher levels the auditor prints the API key; keep it out of CI logs.
Auditor.DEBUG_VERBOSITY = 1
api = f"{base}/api/v1"
checks = 0


def check(cond, what):
    global checks
    if not cond:
        raise SystemExit(f"FAILED: {what}")
    checks += 1
    print(f"ok - {what}")


# --- bootstrap, as client-go's about_test.go does ---
r = requests.post(f"{api}/user/login", data={"username": "admin", "password": "admin"})
check(r.status_code == 401 and r.text == "FORCE_PASSWORD_CHANGE", "admin must change the default password")
r = requests.post(
    f"{api}/user/forceChangePassword",
    data={"username": "admin", "password": "admin", "newPassword": "ci-s3cret", "confirmPassword": "ci-s3cret"},
)
check(r.status_code == 200, "forced password change")
r = requests.post(f"{api}/user/login", data={"username": "admin", "password": "ci-s3cret"})
check(r.status_code == 200 and r.text.count(".") == 2, "login returns a JWT")
bearer = {"Authorization": f"Bearer {r.text}"}
r = requests.put(f"{api}/team", json={"name": "CI"}, headers=bearer)
check(r.status_code == 201, "team created")
team = r.json()["uuid"]
for p in [
    "BOM_UPLOAD", "PROJECT_CREATION_UPLOAD", "VIEW_PORTFOLIO", "PORTFOLIO_MANAGEMENT",
    "VIEW_VULNERABILITY", "VULNERABILITY_ANALYSIS", "VULNERABILITY_MANAGEMENT",
    "VIEW_POLICY_VIOLATION", "POLICY_MANAGEMENT", "ACCESS_MANAGEMENT", "VIEW_BADGES",
]:
    r = requests.post(f"{api}/permission/{p}/team/{team}", headers=bearer)
    check(r.status_code == 200, f"granted {p}")
r = requests.put(f"{api}/team/{team}/key", headers=bearer)
check(r.status_code == 201 and r.json()["key"].startswith("odt_"), "API key created")
key = r.json()["key"]
hdr = {"X-Api-Key": key}
r = requests.put(f"{api}/policy", json={"name": "no-gpl", "violationState": "FAIL"}, headers=hdr)
check(r.status_code == 201, "policy created")
r = requests.put(
    f"{api}/policy/{r.json()['uuid']}/condition",
    json={"subject": "LICENSE", "operator": "IS", "value": "GPL-3.0-only"},
    headers=hdr,
)
check(r.status_code == 201, "policy condition created")

# --- dtrack-auditor: version, BOM upload (waits for processing), projects, violations ---
auditor = DTrackClient(base_url=base, api_key=key)
check(auditor.get_dependencytrack_version()["version"] == "4.14.2", "auditor reads the version")
token = auditor.read_upload_bom("ci-app", "1.0", bom_file, auto_create=True, wait=True)
check(len(token) == 36, "auditor uploaded the BOM and waited for its processing")
project = auditor.get_project_with_version_id("ci-app", "1.0")
check(len(project) == 36, "auditor looks the project up")
projects = auditor.get_project_list(project_name="ci-app")
check([p["uuid"] for p in projects] == [project], "auditor lists the project")
violations = auditor.get_project_policy_violations(project)
check(len(violations) == 1 and violations[0]["component"]["name"] == "gpl-lib", "auditor reads the violation")

# A vulnerability attributed by hand makes a finding (no scanner runs here).
comps = requests.get(f"{api}/component/project/{project}", headers=hdr).json()
lib = next(c for c in comps if c["name"] == "left-pad")
r = requests.put(f"{api}/vulnerability", json={"vulnId": "INT-2026-1", "severity": "HIGH"}, headers=hdr)
vuln = r.json()["uuid"]
r = requests.post(f"{api}/vulnerability/{vuln}/component/{lib['uuid']}", headers=hdr)
check(r.status_code == 200, "vulnerability attributed")
findings = auditor.get_project_findings(project)
check(len(findings) == 1 and findings[0]["vulnerability"]["vulnId"] == "INT-2026-1", "auditor reads the finding")

# --- dependency-track-client ---
client = DtClient(base, key)
check(client.version() == "4.14.2", "client reads the version")
check(any(p["name"] == "ci-app" for p in client.list_projects()), "client lists projects")
check(client.project_lookup("ci-app", "1.0")["uuid"] == project, "client looks the project up")
check(client.get_project(project)["name"] == "ci-app", "client reads the project")
names = sorted(c["name"] for c in client.get_project_components(project))
check(names == ["gpl-lib", "left-pad", "tiny"], "client reads the components")
check(len(client.get_project_violations(project)) == 1, "client reads the violations")
r = requests.put(
    f"{api}/project/{project}/property",
    json={"groupName": "ci", "propertyName": "pipeline", "propertyValue": "main", "propertyType": "STRING"},
    headers=hdr,
)
check(r.status_code == 201, "project property created")
props = [(p["groupName"], p["propertyName"], p["propertyValue"]) for p in client.get_project_property(project)]
check(props == [("ci", "pipeline", "main")], "client reads the project's properties")

# --- dependency-track-api: ACL and analysis ---
dt = DtApi(base, key)
check(dt.get_version()["application"] == "Dependency-Track", "api client reads About")
try:
    dt.add_acl_mapping(team, project)
except requests.exceptions.JSONDecodeError:
    # Upstream answers 200 with an empty body, which this client tries to parse.
    pass
check([p["uuid"] for p in dt.retrieve_projects_for_team(team)] == [project], "api client lists the team's projects")
dt.delete_mapping(team, project)
check(dt.retrieve_projects_for_team(team) == [], "api client removed the mapping")
a = dt.update_analysis({
    "project": project, "component": lib["uuid"], "vulnerability": vuln,
    "analysisState": "NOT_AFFECTED", "analysisJustification": "CODE_NOT_REACHABLE",
    "comment": "checked in CI", "isSuppressed": True,
})
check(a["analysisState"] == "NOT_AFFECTED" and a["isSuppressed"], "api client records an analysis")
a = dt.retrieve_analysis(project, lib["uuid"], vuln)
comments = [c["comment"] for c in a["analysisComments"]]
check(comments == ["Analysis: NOT_SET \u2192 NOT_AFFECTED", "Justification: NOT_SET \u2192 CODE_NOT_REACHABLE",
                   "Suppressed", "checked in CI"], "audit trail as upstream")
check(all(c["commenter"] == "CI" for c in a["analysisComments"]), "commenter is the key's team")

# --- badge ---
requests.get(f"{api}/metrics/project/{project}/refresh", headers=hdr)
r = requests.get(f"{api}/badge/violations/project/ci-app/1.0", params={"apiKey": key})
check(r.status_code == 200 and r.headers["content-type"] == "image/svg+xml", "badge served")
with open(sys.argv[3] if len(sys.argv) > 3 else "/dev/null", "w") as f:
    f.write(r.text)

print(f"{checks} passed, 0 failed")
