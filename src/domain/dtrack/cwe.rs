//! CWE names findings show beside CWE numbers (`cweName`, `cwes[].name`): MITRE's names of the
//! weaknesses advisories cite most, in one sorted table. A number outside the table shows
//! without a name. Pure; must not touch HTTP types or SQL.

/// (CWE number, MITRE's name), sorted by number.
const NAMES: &[(i64, &str)] = &[
    (20, "Improper Input Validation"),
    (
        22,
        "Improper Limitation of a Pathname to a Restricted Directory ('Path Traversal')",
    ),
    (23, "Relative Path Traversal"),
    (
        59,
        "Improper Link Resolution Before File Access ('Link Following')",
    ),
    (
        74,
        "Improper Neutralization of Special Elements in Output Used by a Downstream Component ('Injection')",
    ),
    (
        77,
        "Improper Neutralization of Special Elements used in a Command ('Command Injection')",
    ),
    (
        78,
        "Improper Neutralization of Special Elements used in an OS Command ('OS Command Injection')",
    ),
    (
        79,
        "Improper Neutralization of Input During Web Page Generation ('Cross-site Scripting')",
    ),
    (
        88,
        "Improper Neutralization of Argument Delimiters in a Command ('Argument Injection')",
    ),
    (
        89,
        "Improper Neutralization of Special Elements used in an SQL Command ('SQL Injection')",
    ),
    (
        90,
        "Improper Neutralization of Special Elements used in an LDAP Query ('LDAP Injection')",
    ),
    (91, "XML Injection (aka Blind XPath Injection)"),
    (
        94,
        "Improper Control of Generation of Code ('Code Injection')",
    ),
    (
        95,
        "Improper Neutralization of Directives in Dynamically Evaluated Code ('Eval Injection')",
    ),
    (
        113,
        "Improper Neutralization of CRLF Sequences in HTTP Headers ('HTTP Request/Response Splitting')",
    ),
    (116, "Improper Encoding or Escaping of Output"),
    (
        119,
        "Improper Restriction of Operations within the Bounds of a Memory Buffer",
    ),
    (
        120,
        "Buffer Copy without Checking Size of Input ('Classic Buffer Overflow')",
    ),
    (125, "Out-of-bounds Read"),
    (134, "Use of Externally-Controlled Format String"),
    (176, "Improper Handling of Unicode Encoding"),
    (189, "Numeric Errors"),
    (190, "Integer Overflow or Wraparound"),
    (191, "Integer Underflow (Wrap or Wraparound)"),
    (
        200,
        "Exposure of Sensitive Information to an Unauthorized Actor",
    ),
    (201, "Insertion of Sensitive Information Into Sent Data"),
    (203, "Observable Discrepancy"),
    (208, "Observable Timing Discrepancy"),
    (
        209,
        "Generation of Error Message Containing Sensitive Information",
    ),
    (248, "Uncaught Exception"),
    (252, "Unchecked Return Value"),
    (255, "Credentials Management Errors"),
    (256, "Plaintext Storage of a Password"),
    (259, "Use of Hard-coded Password"),
    (264, "Permissions, Privileges, and Access Controls"),
    (269, "Improper Privilege Management"),
    (276, "Incorrect Default Permissions"),
    (284, "Improper Access Control"),
    (285, "Improper Authorization"),
    (287, "Improper Authentication"),
    (
        288,
        "Authentication Bypass Using an Alternate Path or Channel",
    ),
    (290, "Authentication Bypass by Spoofing"),
    (294, "Authentication Bypass by Capture-replay"),
    (295, "Improper Certificate Validation"),
    (297, "Improper Validation of Certificate with Host Mismatch"),
    (306, "Missing Authentication for Critical Function"),
    (
        307,
        "Improper Restriction of Excessive Authentication Attempts",
    ),
    (310, "Cryptographic Issues"),
    (311, "Missing Encryption of Sensitive Data"),
    (312, "Cleartext Storage of Sensitive Information"),
    (319, "Cleartext Transmission of Sensitive Information"),
    (321, "Use of Hard-coded Cryptographic Key"),
    (326, "Inadequate Encryption Strength"),
    (327, "Use of a Broken or Risky Cryptographic Algorithm"),
    (328, "Use of Weak Hash"),
    (330, "Use of Insufficiently Random Values"),
    (331, "Insufficient Entropy"),
    (
        338,
        "Use of Cryptographically Weak Pseudo-Random Number Generator (PRNG)",
    ),
    (345, "Insufficient Verification of Data Authenticity"),
    (346, "Origin Validation Error"),
    (347, "Improper Verification of Cryptographic Signature"),
    (352, "Cross-Site Request Forgery (CSRF)"),
    (354, "Improper Validation of Integrity Check Value"),
    (
        362,
        "Concurrent Execution using Shared Resource with Improper Synchronization ('Race Condition')",
    ),
    (367, "Time-of-check Time-of-use (TOCTOU) Race Condition"),
    (369, "Divide By Zero"),
    (377, "Insecure Temporary File"),
    (384, "Session Fixation"),
    (399, "Resource Management Errors"),
    (400, "Uncontrolled Resource Consumption"),
    (401, "Missing Release of Memory after Effective Lifetime"),
    (404, "Improper Resource Shutdown or Release"),
    (407, "Inefficient Algorithmic Complexity"),
    (
        409,
        "Improper Handling of Highly Compressed Data (Data Amplification)",
    ),
    (415, "Double Free"),
    (416, "Use After Free"),
    (425, "Direct Request ('Forced Browsing')"),
    (426, "Untrusted Search Path"),
    (427, "Uncontrolled Search Path Element"),
    (428, "Unquoted Search Path or Element"),
    (434, "Unrestricted Upload of File with Dangerous Type"),
    (
        444,
        "Inconsistent Interpretation of HTTP Requests ('HTTP Request/Response Smuggling')",
    ),
    (459, "Incomplete Cleanup"),
    (
        470,
        "Use of Externally-Controlled Input to Select Classes or Code ('Unsafe Reflection')",
    ),
    (476, "NULL Pointer Dereference"),
    (494, "Download of Code Without Integrity Check"),
    (502, "Deserialization of Untrusted Data"),
    (521, "Weak Password Requirements"),
    (522, "Insufficiently Protected Credentials"),
    (532, "Insertion of Sensitive Information into Log File"),
    (
        538,
        "Insertion of Sensitive Information into Externally-Accessible File or Directory",
    ),
    (552, "Files or Directories Accessible to External Parties"),
    (601, "URL Redirection to Untrusted Site ('Open Redirect')"),
    (
        610,
        "Externally Controlled Reference to a Resource in Another Sphere",
    ),
    (611, "Improper Restriction of XML External Entity Reference"),
    (613, "Insufficient Session Expiration"),
    (617, "Reachable Assertion"),
    (639, "Authorization Bypass Through User-Controlled Key"),
    (
        640,
        "Weak Password Recovery Mechanism for Forgotten Password",
    ),
    (
        643,
        "Improper Neutralization of Data within XPath Expressions ('XPath Injection')",
    ),
    (662, "Improper Synchronization"),
    (665, "Improper Initialization"),
    (667, "Improper Locking"),
    (668, "Exposure of Resource to Wrong Sphere"),
    (669, "Incorrect Resource Transfer Between Spheres"),
    (670, "Always-Incorrect Control Flow Implementation"),
    (674, "Uncontrolled Recursion"),
    (680, "Integer Overflow to Buffer Overflow"),
    (681, "Incorrect Conversion between Numeric Types"),
    (682, "Incorrect Calculation"),
    (693, "Protection Mechanism Failure"),
    (697, "Incorrect Comparison"),
    (704, "Incorrect Type Conversion or Cast"),
    (706, "Use of Incorrectly-Resolved Name or Reference"),
    (707, "Improper Neutralization"),
    (732, "Incorrect Permission Assignment for Critical Resource"),
    (754, "Improper Check for Unusual or Exceptional Conditions"),
    (755, "Improper Handling of Exceptional Conditions"),
    (770, "Allocation of Resources Without Limits or Throttling"),
    (772, "Missing Release of Resource after Effective Lifetime"),
    (
        776,
        "Improper Restriction of Recursive Entity References in DTDs ('XML Entity Expansion')",
    ),
    (787, "Out-of-bounds Write"),
    (789, "Memory Allocation with Excessive Size Value"),
    (798, "Use of Hard-coded Credentials"),
    (807, "Reliance on Untrusted Inputs in a Security Decision"),
    (824, "Access of Uninitialized Pointer"),
    (
        829,
        "Inclusion of Functionality from Untrusted Control Sphere",
    ),
    (834, "Excessive Iteration"),
    (
        835,
        "Loop with Unreachable Exit Condition ('Infinite Loop')",
    ),
    (
        843,
        "Access of Resource Using Incompatible Type ('Type Confusion')",
    ),
    (862, "Missing Authorization"),
    (863, "Incorrect Authorization"),
    (908, "Use of Uninitialized Resource"),
    (
        913,
        "Improper Control of Dynamically-Managed Code Resources",
    ),
    (
        915,
        "Improperly Controlled Modification of Dynamically-Determined Object Attributes",
    ),
    (
        916,
        "Use of Password Hash With Insufficient Computational Effort",
    ),
    (
        917,
        "Improper Neutralization of Special Elements used in an Expression Language Statement ('Expression Language Injection')",
    ),
    (918, "Server-Side Request Forgery (SSRF)"),
    (922, "Insecure Storage of Sensitive Information"),
    (
        940,
        "Improper Verification of Source of a Communication Channel",
    ),
    (942, "Permissive Cross-domain Policy with Untrusted Domains"),
    (1021, "Improper Restriction of Rendered UI Layers or Frames"),
    (
        1321,
        "Improperly Controlled Modification of Object Prototype Attributes ('Prototype Pollution')",
    ),
    (1333, "Inefficient Regular Expression Complexity"),
    (
        1336,
        "Improper Neutralization of Special Elements Used in a Template Engine",
    ),
];

/// MITRE's name of a CWE number, when the table has it.
pub fn name(id: i64) -> Option<&'static str> {
    NAMES
        .binary_search_by_key(&id, |(n, _)| *n)
        .ok()
        .map(|i| NAMES[i].1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_found() {
        assert!(NAMES.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(
            name(79),
            Some(
                "Improper Neutralization of Input During Web Page Generation ('Cross-site Scripting')"
            )
        );
        assert_eq!(
            name(1333),
            Some("Inefficient Regular Expression Complexity")
        );
        assert_eq!(name(99_999), None);
    }
}
