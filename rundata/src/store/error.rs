//! A store's errors: one line naming the location, the action and its key, and what failed,
//! with any credential blanked out.

use object_store::client::{HttpError, HttpErrorKind};
use object_store::path::Path as Key;
use std::error::Error;

/// A failed store operation. Its message is one line: the store's location (`s3://bucket/prefix`
/// or a folder), what was being done to which key, and what failed. It never holds a secret key
/// or session token.
#[derive(Debug, thiserror::Error)]
#[error("{location}: {action}: {problem}")]
pub struct StoreError {
    location: String,
    action: String,
    problem: Problem,
}

impl StoreError {
    /// What failed.
    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// Whether the store may answer if asked again later: it was unreachable, or its server
    /// failed (5xx). Roles wait these out; every other problem is final.
    pub fn is_transient(&self) -> bool {
        matches!(self.problem, Problem::Unreachable { .. } | Problem::NotServing { .. })
    }
}

/// What failed, in words for the one-line message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// The location is neither a folder nor `s3://bucket/prefix`.
    #[error("not a valid location: {0}")]
    BadLocation(String),
    /// A key that is not a `/`-separated relative path.
    #[error("not a valid key (keys are /-separated relative paths)")]
    BadKey,
    /// The S3 credentials are missing from the environment.
    #[error("no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")]
    NoCredentials,
    /// `AWS_ENDPOINT_URL` is not an http(s) URL, or is plain http without `AWS_ALLOW_HTTP`.
    #[error("{0}")]
    BadEndpoint(String),
    /// The endpoint did not answer, even after the retries.
    #[error("cannot reach {endpoint}: {cause} (gave up after retrying)")]
    Unreachable {
        /// The endpoint's URL.
        endpoint: String,
        /// What the connection attempt ended with.
        cause: String,
    },
    /// The endpoint answered with a server error (5xx: internal error, unavailable, slow down),
    /// even after the retries: a server that is starting, overloaded or failing.
    #[error("{endpoint} is not serving requests: {cause} (gave up after retrying)")]
    NotServing {
        /// The endpoint's URL.
        endpoint: String,
        /// The server's error code and message.
        cause: String,
    },
    /// The bucket does not exist.
    #[error("the bucket {0} does not exist")]
    NoBucket(String),
    /// The credentials were refused, or do not allow the action.
    #[error("access denied ({0})")]
    AccessDenied(String),
    /// A best-net pointer that does not parse.
    #[error("not a valid best-net pointer ({0})")]
    BadPointer(String),
    /// Anything else the backend reported.
    #[error("{0}")]
    Other(String),
}

/// What a store's errors name: its location, and for S3 the bucket, the endpoint and the secrets
/// to blank out of any message.
#[derive(Default)]
pub(super) struct Context {
    pub(super) location: String,
    bucket: String,
    endpoint: String,
    secrets: Vec<String>,
}

impl Context {
    pub(super) fn local(folder: &str) -> Context {
        Context { location: folder.to_string(), ..Context::default() }
    }

    /// A malformed `s3://REST`, shown without any `user:password@`.
    pub(super) fn malformed(rest: &str) -> Context {
        let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
        let shown = match authority.rfind('@') {
            Some(at) => format!("s3://<redacted>@{}", &rest[at + 1..]),
            None => format!("s3://{rest}"),
        };
        Context { location: shown, ..Context::default() }
    }

    pub(super) fn s3(
        bucket: &str,
        prefix: &Key,
        endpoint: Option<String>,
        secrets: Vec<String>,
    ) -> Context {
        let location = match prefix.as_ref() {
            "" => format!("s3://{bucket}"),
            prefix => format!("s3://{bucket}/{prefix}"),
        };
        let endpoint = endpoint.unwrap_or_else(|| "the AWS S3 endpoint".into());
        Context { location, bucket: bucket.into(), endpoint, secrets }
    }

    pub(super) fn error(&self, action: impl Into<String>, problem: Problem) -> StoreError {
        StoreError { location: self.location.clone(), action: action.into(), problem }
    }

    /// The error for `action` failing with `e`, classified.
    pub(super) fn failed(&self, action: impl Into<String>, e: object_store::Error) -> StoreError {
        self.error(action, self.problem(&e))
    }

    fn problem(&self, e: &object_store::Error) -> Problem {
        let text = self.clean(&e.to_string());
        // S3 error bodies are XML: say their code and message, not the whole body.
        let summary = match (xml_tag(&text, "Code"), xml_tag(&text, "Message")) {
            (Some("NoSuchBucket"), _) => return Problem::NoBucket(self.bucket.clone()),
            (Some(code), Some(message)) => format!("{code}: {message}"),
            (Some(code), None) => code.to_string(),
            (None, _) => text.clone(),
        };
        if let Some(cause) = transport_failure(e) {
            let endpoint = self.endpoint.clone();
            return Problem::Unreachable { endpoint, cause: self.clean(&cause) };
        }
        if server_failure(&text) {
            return Problem::NotServing { endpoint: self.endpoint.clone(), cause: summary };
        }
        match e {
            object_store::Error::PermissionDenied { .. }
            | object_store::Error::Unauthenticated { .. } => Problem::AccessDenied(summary),
            _ => Problem::Other(summary),
        }
    }

    /// `text` on one line, with every secret blanked out.
    fn clean(&self, text: &str) -> String {
        let text = self.secrets.iter().fold(text.to_string(), |t, s| t.replace(s, "<redacted>"));
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

/// Whether `e` says the object is missing (and not its whole bucket).
pub(super) fn is_missing(e: &object_store::Error) -> bool {
    matches!(e, object_store::Error::NotFound { .. }) && !e.to_string().contains("NoSuchBucket")
}

/// For a request that got no answer (refused, timed out, cut off), the innermost cause.
fn transport_failure(e: &object_store::Error) -> Option<String> {
    let chain = || std::iter::successors(Some(e as &(dyn Error + 'static)), |&e| e.source());
    let http = chain().find_map(|e| e.downcast_ref::<HttpError>())?;
    (http.kind() != HttpErrorKind::Decode).then(|| chain().last().unwrap().to_string())
}

/// Whether the error's text (object_store keeps the status and the S3 error body there, not in a
/// type it exports) says the server answered with a 5xx status: it may serve again soon.
fn server_failure(text: &str) -> bool {
    const SERVER_CODES: [&str; 3] = ["InternalError", "ServiceUnavailable", "SlowDown"];
    text.contains("non-2xx status code: 5")
        || xml_tag(text, "Code").is_some_and(|code| SERVER_CODES.contains(&code))
}

/// The text of the first `<name>...</name>` in `text`.
fn xml_tag<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let start = text.find(&format!("<{name}>"))? + name.len() + 2;
    let len = text[start..].find(&format!("</{name}>"))?;
    Some(&text[start..start + len])
}

#[cfg(test)]
mod tests {
    use super::server_failure;

    #[test]
    fn server_errors_are_told_from_other_failures() {
        assert!(server_failure("Server returned non-2xx status code: 503 Service Unavailable: "));
        assert!(server_failure("error response: <Error><Code>InternalError</Code></Error>"));
        assert!(!server_failure("error response: <Error><Code>AccessDenied</Code></Error>"));
        assert!(!server_failure("Server returned non-2xx status code: 404 Not Found: "));
    }
}
