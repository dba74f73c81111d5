//! Where skills come from, as a user types it: a local folder, a git URL, or GitHub's
//! `owner/repo` shorthand.

use std::path::{Path, PathBuf};

use crate::error::PackageError;
use crate::lock::normalize;

/// Where skills come from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Source {
    /// A folder holding skills (or a skill folder itself).
    Local(PathBuf),
    /// A git repository, fetched shallowly at a ref (or the remote's `HEAD`).
    Git(GitSource),
}

/// A git repository to install skills from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitSource {
    url: String,
    github: bool,
    subpath: Option<String>,
    reference: Option<String>,
}

impl GitSource {
    /// A repository by its URL (`https://…`, `ssh://…`, `git@host:owner/repo`, `git://…`,
    /// `file://…`), at `reference` (a branch, a tag or a full commit id; the remote's `HEAD`
    /// when `None`).
    ///
    /// # Errors
    ///
    /// [`PackageError::UnsupportedSource`] when the URL holds a password (credentials belong in
    /// git's credential helpers or an SSH key, never in a lock file) or is empty.
    pub fn url(url: &str, reference: Option<&str>) -> Result<GitSource, PackageError> {
        if url.trim().is_empty() {
            return Err(unsupported(url));
        }
        if holds_password(url) {
            return Err(PackageError::UnsupportedSource {
                input: "a URL with a password".to_owned(),
            });
        }
        let github = github_repository(url);
        Ok(GitSource {
            url: match &github {
                Some(repository) => format!("https://github.com/{repository}.git"),
                None => url.to_owned(),
            },
            github: github.is_some(),
            subpath: None,
            reference: reference.map(str::to_owned),
        })
    }

    /// A GitHub repository, `owner/repo`.
    fn github(owner: &str, repository: &str) -> GitSource {
        GitSource {
            url: format!("https://github.com/{owner}/{repository}.git"),
            github: true,
            subpath: None,
            reference: None,
        }
    }

    /// Only the skills at or below `subpath` (a `/`-separated folder of the repository).
    ///
    /// # Errors
    ///
    /// [`PackageError::UnsupportedSource`] when the path climbs (`..`), is absolute or holds
    /// an empty or `.` part.
    pub fn subpath(mut self, subpath: &str) -> Result<GitSource, PackageError> {
        let trimmed = subpath.trim_matches('/');
        if trimmed.is_empty() {
            self.subpath = None;
            return Ok(self);
        }
        let safe = trimmed.split('/').all(|part| {
            !part.is_empty() && part != "." && part != ".." && !part.contains(['\\', '\0'])
        });
        if !safe {
            return Err(PackageError::UnsupportedSource {
                input: subpath.to_owned(),
            });
        }
        self.subpath = Some(trimmed.to_owned());
        Ok(self)
    }

    /// The URL fetched from.
    pub fn fetch_url(&self) -> &str {
        &self.url
    }

    /// The folder of the repository the skills are taken from, when not the whole of it.
    pub fn folder(&self) -> Option<&str> {
        self.subpath.as_deref()
    }

    /// The ref named (a branch, a tag or a commit id), if any.
    pub fn reference(&self) -> Option<&str> {
        self.reference.as_deref()
    }

    /// The lock's `sourceType`: `github` for GitHub repositories, `git` for any other.
    pub(crate) fn source_type(&self) -> &'static str {
        if self.github { "github" } else { "git" }
    }

    /// The lock's `source`, as the `skills` tool writes it: `owner/repo` for GitHub, the URL
    /// for any other repository.
    pub(crate) fn lock_source(&self) -> String {
        match github_repository(&self.url) {
            Some(repository) if self.github => repository,
            _ => self.url.clone(),
        }
    }

    /// The lock's `sourceUrl`, which the `skills` tool writes for repositories other than
    /// GitHub's only.
    pub(crate) fn lock_source_url(&self) -> Option<&str> {
        (!self.github).then_some(self.url.as_str())
    }

    /// The source a lock entry records: its `sourceType`, `source`, `sourceUrl` and `ref`.
    /// `None` for a type other than `github` and `git`.
    pub(crate) fn from_lock(
        source_type: &str,
        source: &str,
        source_url: Option<&str>,
        reference: Option<&str>,
    ) -> Option<Result<GitSource, PackageError>> {
        let url = match (source_type, source_url) {
            ("github", _) if is_shorthand(source) => {
                format!("https://github.com/{}.git", source.trim_end_matches(".git"))
            }
            ("github" | "git", Some(url)) if !url.is_empty() => url.to_owned(),
            ("github" | "git", _) => source.to_owned(),
            _ => return None,
        };
        Some(GitSource::url(&url, reference))
    }

    /// The URL as shown in messages: without any user name.
    pub(crate) fn shown(&self) -> String {
        shown_url(&self.url)
    }
}

impl Source {
    /// A local folder (made absolute against the current directory).
    pub fn local(path: impl AsRef<Path>) -> Source {
        let path = path.as_ref();
        Source::Local(normalize(
            &std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
        ))
    }

    /// Reads a source as typed by a user:
    ///
    /// - a local folder: an absolute path or one starting with `./` or `../` (or `.`, `..`), as
    ///   the `skills` tool decides; relative paths resolve against `current_directory`;
    /// - a git URL: `https://…`, `http://…`, `ssh://…`, `git://…`, `file://…` or
    ///   `user@host:path`, with an optional `#ref`; a `github.com/owner/repo/tree/REF/path`
    ///   page address is read as that repository, ref and folder;
    /// - GitHub's shorthand `owner/repo[/path/to/skills][@ref]` (also `#ref`, and
    ///   `github:owner/repo`).
    ///
    /// # Errors
    ///
    /// [`PackageError::UnsupportedSource`] for anything else, and for a URL holding a password.
    pub fn parse(input: &str, current_directory: &Path) -> Result<Source, PackageError> {
        let local = Path::new(input).is_absolute()
            || input.starts_with("./")
            || input.starts_with("../")
            || input == "."
            || input == "..";
        if local {
            return Ok(Source::local(current_directory.join(input)));
        }
        let (input, fragment) = match input.split_once('#') {
            Some((rest, reference)) if !reference.is_empty() => (rest, Some(reference)),
            _ => (input, None),
        };
        let input = input.strip_prefix("github:").unwrap_or(input);
        if let Some(source) = github_page(input, fragment)? {
            return Ok(Source::Git(source));
        }
        if input.contains("://") || is_scp_like(input) {
            return GitSource::url(input, fragment).map(Source::Git);
        }
        shorthand(input, fragment).map(Source::Git)
    }
}

/// `owner/repo[/path][@ref]`.
fn shorthand(input: &str, fragment: Option<&str>) -> Result<GitSource, PackageError> {
    let (path, at) = match input.rsplit_once('@') {
        // A ref may hold slashes: `owner/repo@feature/branch`.
        Some((path, reference)) if !reference.is_empty() => (path, Some(reference)),
        _ => (input, None),
    };
    if !is_shorthand(path) {
        return Err(unsupported(input));
    }
    let mut parts = path.trim_end_matches('/').splitn(3, '/');
    let (Some(owner), Some(repository)) = (parts.next(), parts.next()) else {
        return Err(unsupported(input));
    };
    let repository = repository.trim_end_matches(".git");
    if !is_github_name(owner) || !is_github_name(repository) {
        return Err(unsupported(input));
    }
    let mut source = GitSource::github(owner, repository);
    source.reference = fragment.or(at).map(str::to_owned);
    match parts.next() {
        Some(subpath) => source.subpath(subpath),
        None => Ok(source),
    }
}

/// `https://github.com/owner/repo/tree/REF[/path]`, as copied from a browser.
fn github_page(input: &str, fragment: Option<&str>) -> Result<Option<GitSource>, PackageError> {
    let Some(rest) = input
        .strip_prefix("https://github.com/")
        .or_else(|| input.strip_prefix("http://github.com/"))
    else {
        return Ok(None);
    };
    let parts: Vec<&str> = rest.trim_end_matches('/').split('/').collect();
    let [owner, repository, "tree", reference, subpath @ ..] = parts.as_slice() else {
        return Ok(None);
    };
    let repository = repository.trim_end_matches(".git");
    if !is_github_name(owner) || !is_github_name(repository) {
        return Err(unsupported(input));
    }
    let mut source = GitSource::github(owner, repository);
    source.reference = Some(fragment.unwrap_or(reference).to_owned());
    source.subpath(&subpath.join("/")).map(Some)
}

/// A bare `owner/repo…`: no scheme, no colon, not a path.
fn is_shorthand(input: &str) -> bool {
    !input.contains(':')
        && !input.starts_with('.')
        && !input.starts_with('/')
        && input.contains('/')
}

/// The characters GitHub allows in an owner or repository name.
fn is_github_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.'))
}

/// `user@host:path`, git's scp-like SSH form.
fn is_scp_like(input: &str) -> bool {
    match input.split_once(':') {
        Some((host, path)) => {
            host.contains('@') && !host.contains('/') && !path.is_empty() && !path.starts_with("//")
        }
        None => false,
    }
}

/// `owner/repo` of a github.com URL (HTTPS, SSH or scp-like).
fn github_repository(url: &str) -> Option<String> {
    let path = url
        .strip_prefix("https://github.com/")
        .or_else(|| url.strip_prefix("http://github.com/"))
        .or_else(|| url.strip_prefix("git@github.com:"))
        .or_else(|| url.strip_prefix("ssh://git@github.com/"))?;
    let path = path.trim_end_matches('/').trim_end_matches(".git");
    let (owner, repository) = path.split_once('/')?;
    (is_github_name(owner) && is_github_name(repository)).then(|| format!("{owner}/{repository}"))
}

/// The URL's user information holds a password (`scheme://user:secret@host/…`).
fn holds_password(url: &str) -> bool {
    let Some((_, rest)) = url.split_once("://") else {
        return false;
    };
    let authority = rest.split('/').next().unwrap_or_default();
    authority
        .rsplit_once('@')
        .is_some_and(|(user, _)| user.contains(':'))
}

/// A URL without its user information, for messages.
pub(crate) fn shown_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    match authority.rsplit_once('@') {
        Some((_, host)) => format!("{scheme}://{host}{path}"),
        None => url.to_owned(),
    }
}

fn unsupported(input: &str) -> PackageError {
    PackageError::UnsupportedSource {
        input: input.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{GitSource, Source};

    fn git(input: &str) -> GitSource {
        match Source::parse(input, Path::new("/work")) {
            Ok(Source::Git(source)) => source,
            other => panic!("{input}: {other:?}"),
        }
    }

    #[test]
    fn shorthand_names_a_github_repository_a_folder_and_a_ref() {
        let source = git("anthropics/skills/skills/pdf@v1.2");
        assert_eq!(
            source.fetch_url(),
            "https://github.com/anthropics/skills.git"
        );
        assert_eq!(source.folder(), Some("skills/pdf"));
        assert_eq!(source.reference(), Some("v1.2"));
        assert_eq!(source.source_type(), "github");
        assert_eq!(source.lock_source(), "anthropics/skills");
        assert_eq!(source.lock_source_url(), None);
        let fragment = git("github:anthropics/skills#main");
        assert_eq!(fragment.reference(), Some("main"));
        assert_eq!(fragment.folder(), None);
    }

    #[test]
    fn urls_of_every_transport_are_git_sources() {
        for url in [
            "https://gitlab.com/team/skills.git",
            "ssh://git@example.com/team/skills.git",
            "git@example.com:team/skills.git",
            "git://127.0.0.1/skills",
            "file:///srv/git/skills",
        ] {
            let source = git(url);
            assert_eq!(source.fetch_url(), url);
            assert_eq!(source.source_type(), "git");
            assert_eq!(source.lock_source(), url);
            assert_eq!(source.lock_source_url(), Some(url));
        }
        let github = git("git@github.com:anthropics/skills.git");
        assert_eq!(github.source_type(), "github");
        assert_eq!(github.lock_source(), "anthropics/skills");
    }

    #[test]
    fn a_github_page_address_gives_its_ref_and_folder() {
        let source = git("https://github.com/anthropics/skills/tree/main/skills/pdf");
        assert_eq!(source.reference(), Some("main"));
        assert_eq!(source.folder(), Some("skills/pdf"));
        assert_eq!(
            source.fetch_url(),
            "https://github.com/anthropics/skills.git"
        );
    }

    #[test]
    fn hostile_or_unclear_sources_are_refused_without_echoing_secrets() {
        for input in [
            "owner/repo/../../etc",
            "owner",
            "skills",
            "own er/repo",
            "https://github.com/owner/repo/tree/main/../x",
        ] {
            assert!(Source::parse(input, Path::new("/")).is_err(), "{input}");
        }
        let error = Source::parse("https://user:hunter2@example.com/r.git", Path::new("/"))
            .expect_err("a password in a URL is refused");
        assert!(!error.to_string().contains("hunter2"), "{error}");
    }

    #[test]
    fn a_lock_entry_gives_back_its_source() {
        let github = GitSource::from_lock("github", "anthropics/skills", None, Some("main"))
            .and_then(Result::ok)
            .expect("a github entry");
        assert_eq!(
            github.fetch_url(),
            "https://github.com/anthropics/skills.git"
        );
        assert_eq!(github.reference(), Some("main"));
        let other = GitSource::from_lock("git", "file:///srv/s", Some("file:///srv/s"), None)
            .and_then(Result::ok)
            .expect("a git entry");
        assert_eq!(other.fetch_url(), "file:///srv/s");
        assert!(GitSource::from_lock("local", "./skills", None, None).is_none());
    }

    #[test]
    fn shown_urls_drop_the_user() {
        assert_eq!(
            super::shown_url("https://token@example.com/r.git"),
            "https://example.com/r.git"
        );
        assert_eq!(super::shown_url("git@github.com:o/r"), "git@github.com:o/r");
    }
}
