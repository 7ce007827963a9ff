//! Who makes a decision: the login name, for `--by`'s default and the
//! console's decisions alike.

/// The login name, for `--by`'s default.
pub fn login_name() -> String {
    ["LOGNAME", "USER", "USERNAME"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.trim().is_empty()))
        .or_else(account_name)
        .unwrap_or_else(|| "unknown".to_owned())
}

/// The name of this process's user account, from the password database
/// (a shell without LOGNAME or USER: cron, a container, `env -i`), as the
/// `whoami` crate reads it (`getpwuid_r` on Unix; the account API elsewhere).
fn account_name() -> Option<String> {
    let name = whoami::username_os().ok()?.to_string_lossy().into_owned();
    (!name.trim().is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn the_account_name_is_found_without_the_environment() {
        // The password database's name for this uid, as `id -un` prints it.
        let id = std::process::Command::new("id").arg("-un").output();
        if let Ok(out) = id
            && out.status.success()
        {
            let want = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            assert_eq!(account_name().as_deref(), Some(want.as_str()));
        }
    }
}
