//! Git for the tests that make repositories (the library never runs it).

use std::path::Path;

/// Runs git in `folder` with a test identity and no signing.
pub fn git(folder: &Path, arguments: &[&str]) -> Result<(), Box<dyn std::error::Error>> {
    let status = std::process::Command::new("git")
        .current_dir(folder)
        .args(["-c", "user.name=test", "-c", "user.email=test@example.com"])
        .args(["-c", "commit.gpgsign=false"])
        .args(arguments)
        .status()?;
    if !status.success() {
        return Err(format!("git {arguments:?} failed").into());
    }
    Ok(())
}
