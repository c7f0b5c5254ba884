//! A run's storage behind one synchronous API: a local folder or S3-compatible object storage
//! (`s3://bucket/prefix`), through the `object_store` crate.
//!
//! Keys are `/`-separated relative paths such as `shards/123.shard`. Every write is atomic on both
//! backends (a reader sees the old object or the complete new one), and [`Store::create`] writes
//! only if the key is absent, which is what the best-net pointer ([`Store::promote`]) is built on.
//! For S3 the endpoint, region and credentials come from the standard AWS environment variables
//! only (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION` or
//! `AWS_DEFAULT_REGION`, `AWS_ENDPOINT_URL` or `AWS_ENDPOINT`, `AWS_ALLOW_HTTP`). HTTPS runs on
//! rustls with ring's crypto, installed as the process's provider when the first S3 store opens.

mod best;
mod error;

pub use best::Promotion;
pub use error::{Problem, StoreError};

use error::Context;
use futures_util::TryStreamExt;
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::local::LocalFileSystem;
use object_store::path::Path as Key;
use object_store::prefix::PrefixStore;
use object_store::{
    BackoffConfig, ClientConfigKey, ClientOptions, ObjectStore, ObjectStoreExt, PutMode,
    RetryConfig,
};
use std::fmt;
use std::future::Future;
use std::time::Duration;

/// A run's storage: a local folder or a prefix in an S3 bucket. Safe to share between threads;
/// each call blocks until its request is done (with bounded retries for transient failures).
pub struct Store {
    objects: Box<dyn ObjectStore>,
    context: Context,
    runtime: tokio::runtime::Runtime,
    /// The folder of a local store, whose files are checked before they are opened.
    folder: Option<std::path::PathBuf>,
}

/// The largest object read whole (a net, a state, a shard, a log); a bigger one is refused with
/// the setting that raises the limit (`support::read_capped`'s `CHECKERS_ZERO_MAX_FILE_MB`).
pub const MAX_OBJECT_BYTES: u64 = 1 << 30;

/// What [`Store::create`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Created {
    /// The object did not exist and now holds the bytes.
    New,
    /// The object already existed and was left as it was.
    AlreadyExists,
}

impl Store {
    /// Opens the store at `location`: a local folder (created if missing) or `s3://bucket/prefix`,
    /// configured by the AWS variables of the process environment. Opening sends no request.
    pub fn open(location: &str) -> Result<Store, StoreError> {
        let env = std::env::vars_os()
            .filter_map(|(key, value)| Some((key.into_string().ok()?, value.into_string().ok()?)));
        Store::open_with_env(location, env)
    }

    /// Like [`Store::open`], with the AWS variables taken from `env` (name, value) instead of the
    /// process environment; other names are ignored.
    pub fn open_with_env(
        location: &str,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Store, StoreError> {
        let (objects, context) = match location.strip_prefix("s3://") {
            Some(rest) => s3(rest, env)?,
            None => local(location)?,
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("rundata-store")
            .enable_all()
            .build()
            .map_err(|e| context.error("starting its I/O thread", Problem::Other(e.to_string())))?;
        let folder = location.strip_prefix("s3://").is_none().then(|| location.into());
        Ok(Store { objects, context, runtime, folder })
    }

    /// Writes `bytes` to `key`, replacing any object there, atomically.
    pub fn put(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let action = || format!("writing {key}");
        let path = self.key(key, action)?;
        self.block_on(action, self.objects.put(&path, bytes.to_vec().into())).map(drop)
    }

    /// Writes `bytes` to `key` only if no object is there: of two writers racing for one key,
    /// exactly one gets [`Created::New`]. A request retried after its answer was lost may find
    /// its own object there, and say [`Created::AlreadyExists`]; compare the contents where that
    /// matters (as [`Store::promote`] does).
    pub fn create(&self, key: &str, bytes: &[u8]) -> Result<Created, StoreError> {
        let action = || format!("creating {key}");
        let path = self.key(key, action)?;
        let put = self.objects.put_opts(&path, bytes.to_vec().into(), PutMode::Create.into());
        match self.runtime.block_on(put) {
            Ok(_) => Ok(Created::New),
            Err(object_store::Error::AlreadyExists { .. }) => Ok(Created::AlreadyExists),
            Err(e) => Err(self.context.failed(action(), e)),
        }
    }

    /// The bytes of `key`, or `None` when there is no such object. An object bigger than
    /// [`MAX_OBJECT_BYTES`] (or the limit `CHECKERS_ZERO_MAX_FILE_MB` sets), or in a local store a
    /// file that is not a regular file (a FIFO would block the open), is refused unread.
    pub fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let action = || format!("reading {key}");
        let path = self.key(key, action)?;
        let refused =
            |e: support::ReadError| self.context.error(action(), Problem::Other(e.to_string()));
        if let Some(folder) = &self.folder {
            match support::check_regular(&folder.join(key)) {
                Err(e) if e.is_not_found() => return Ok(None),
                Err(e) => return Err(refused(e)),
                Ok(_) => {}
            }
        }
        let limit = support::read::file_limit(MAX_OBJECT_BYTES);
        let read = async {
            let object = self.objects.get(&path).await?;
            match object.meta.size {
                size if size > limit => Ok(Err(size)),
                _ => object.bytes().await.map(Ok),
            }
        };
        match self.runtime.block_on(read) {
            Ok(Ok(bytes)) => Ok(Some(bytes.into())),
            Ok(Err(bytes)) => {
                Err(refused(support::ReadError::TooBig { bytes, limit, what: "a stored object" }))
            }
            Err(e) if error::is_missing(&e) => Ok(None),
            Err(e) => Err(self.context.failed(action(), e)),
        }
    }

    /// The keys under the folder `prefix` (`""` for all), sorted.
    pub fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let action = || format!("listing {prefix}/");
        let path = relative(prefix).ok_or_else(|| self.context.error(action(), Problem::BadKey))?;
        let list = self.objects.list(Some(&path)).map_ok(|meta| meta.location.to_string());
        let mut keys: Vec<String> = self.block_on(action, list.try_collect())?;
        keys.sort_unstable();
        Ok(keys)
    }

    /// Deletes `key`; deleting a missing object is not an error.
    pub fn delete(&self, key: &str) -> Result<(), StoreError> {
        let action = || format!("deleting {key}");
        let path = self.key(key, action)?;
        match self.runtime.block_on(self.objects.delete(&path)) {
            Err(e) if !error::is_missing(&e) => Err(self.context.failed(action(), e)),
            _ => Ok(()),
        }
    }

    /// Parses `key`, which must be a non-empty `/`-separated relative path.
    fn key(&self, key: &str, action: impl Fn() -> String) -> Result<Key, StoreError> {
        relative(key)
            .filter(|_| !key.is_empty())
            .ok_or_else(|| self.context.error(action(), Problem::BadKey))
    }

    /// Runs one request to its end on the store's runtime; a failure names `action`.
    fn block_on<T>(
        &self,
        action: impl Fn() -> String,
        request: impl Future<Output = object_store::Result<T>>,
    ) -> Result<T, StoreError> {
        self.runtime.block_on(request).map_err(|e| self.context.failed(action(), e))
    }
}

/// `text` as a key or prefix: a `/`-separated relative path, without empty, `.` or `..` parts
/// (one trailing `/` is allowed).
fn relative(text: &str) -> Option<Key> {
    Key::parse(text).ok().filter(|_| !text.starts_with('/'))
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").field("location", &self.context.location).finish_non_exhaustive()
    }
}

/// A local folder, created if missing; writes are fsynced like [`support::write_atomic`]'s.
fn local(location: &str) -> Result<(Box<dyn ObjectStore>, Context), StoreError> {
    let context = Context::local(location);
    let opening = |problem| context.error("opening", problem);
    if location.is_empty() {
        return Err(opening(Problem::BadLocation("empty".into())));
    }
    if location.contains("://") || location.get(..3).is_some_and(|s| s.eq_ignore_ascii_case("s3:"))
    {
        let reason = "only folders and s3://bucket/prefix are supported";
        return Err(opening(Problem::BadLocation(reason.into())));
    }
    std::fs::create_dir_all(location).map_err(|e| {
        let what = match e.kind() {
            std::io::ErrorKind::AlreadyExists => "not a directory".to_string(),
            _ => e.to_string(),
        };
        opening(Problem::Other(what))
    })?;
    let objects =
        LocalFileSystem::new_with_prefix(location).map_err(|e| context.failed("opening", e))?;
    Ok((Box::new(objects.with_fsync(true)), context))
}

/// `s3://bucket/prefix` (`rest` is what follows `s3://`), configured from the AWS variables in
/// `env`, with short timeouts and a few retries so that an unreachable endpoint fails in seconds.
fn s3(
    rest: &str,
    env: impl IntoIterator<Item = (String, String)>,
) -> Result<(Box<dyn ObjectStore>, Context), StoreError> {
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    let bad = |reason: &str| {
        Context::malformed(rest).error("opening", Problem::BadLocation(reason.into()))
    };
    if bucket.is_empty() {
        return Err(bad("no bucket (write s3://bucket/prefix)"));
    }
    if !bucket.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b)) {
        return Err(bad("not a valid bucket name"));
    }
    let prefix = relative(prefix).ok_or_else(|| bad("not a valid prefix"))?;
    let client = ClientOptions::new()
        .with_connect_timeout(Duration::from_secs(3))
        .with_timeout(Duration::from_secs(30));
    let backoff = BackoffConfig {
        init_backoff: Duration::from_millis(100),
        max_backoff: Duration::from_secs(2),
        base: 2.,
    };
    let retry = RetryConfig { backoff, max_retries: 3, retry_timeout: Duration::from_secs(15) };
    let mut builder = AmazonS3Builder::new()
        .with_bucket_name(bucket)
        .with_client_options(client)
        .with_retry(retry);
    for (name, value) in env.into_iter().filter(|(name, _)| name.starts_with("AWS_")) {
        if let Ok(key) = name.to_ascii_lowercase().parse() {
            builder = builder.with_config(key, value);
        }
    }
    let config = |key| builder.get_config_value(&key).filter(|v| !v.is_empty());
    let endpoint = config(AmazonS3ConfigKey::S3Endpoint).or(config(AmazonS3ConfigKey::Endpoint));
    let secrets = [AmazonS3ConfigKey::SecretAccessKey, AmazonS3ConfigKey::Token]
        .into_iter()
        .filter_map(config)
        .collect();
    let has_credentials = config(AmazonS3ConfigKey::AccessKeyId).is_some()
        && config(AmazonS3ConfigKey::SecretAccessKey).is_some();
    let context = Context::s3(bucket, &prefix, endpoint.clone(), secrets);
    if !has_credentials {
        return Err(context.error("opening", Problem::NoCredentials));
    }
    if let Some(endpoint) = &endpoint {
        let allow_http = config(AmazonS3ConfigKey::Client(ClientConfigKey::AllowHttp));
        check_endpoint(endpoint, allow_http.as_deref())
            .map_err(|problem| context.error("opening", problem))?;
        // Path-style requests (`endpoint/bucket/key`), which SeaweedFS and MinIO expect.
        builder = builder.with_virtual_hosted_style_request(false);
    }
    // reqwest's TLS takes the process's crypto provider; an error means one is installed already.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let s3 = builder.build().map_err(|e| context.failed("opening", e))?;
    Ok((Box::new(PrefixStore::new(s3, prefix)), context))
}

/// Checks `endpoint` up front, which `object_store` would only find out on the first request (if
/// not by panicking): an http(s) URL, and plain http only where `AWS_ALLOW_HTTP` allows it.
fn check_endpoint(endpoint: &str, allow_http: Option<&str>) -> Result<(), Problem> {
    let allowed = allow_http.is_some_and(|v| {
        ["1", "true", "on", "yes", "y"].contains(&v.to_ascii_lowercase().as_str())
    });
    match url::Url::parse(endpoint) {
        Ok(url) if url.has_host() && url.scheme() == "https" => Ok(()),
        Ok(url) if url.has_host() && url.scheme() == "http" && allowed => Ok(()),
        Ok(url) if url.has_host() && url.scheme() == "http" => Err(Problem::BadEndpoint(format!(
            "endpoint {endpoint} is plain http: set AWS_ALLOW_HTTP=true to use it"
        ))),
        _ => Err(Problem::BadEndpoint(format!("endpoint {endpoint:?} is not an http(s) URL"))),
    }
}
