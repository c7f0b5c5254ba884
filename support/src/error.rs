//! Errors said on one line: the error and each of its causes, separated by `: `.

/// `err` and its chain of sources on one line, each said once (library errors keep their cause as
/// the source instead of repeating it in their message).
pub fn one_line(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut cause = err.source();
    while let Some(next) = cause {
        text = format!("{text}: {next}");
        cause = next.source();
    }
    text
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_cause_follows_its_error() {
        let io = std::io::Error::other("disk on fire");
        let err = crate::Invalid::new("x", 1, "bad");
        assert_eq!(super::one_line(&err), err.to_string());
        #[derive(Debug, thiserror::Error)]
        #[error("saving net.safetensors")]
        struct Saving(#[source] std::io::Error);
        assert_eq!(super::one_line(&Saving(io)), "saving net.safetensors: disk on fire");
    }
}
