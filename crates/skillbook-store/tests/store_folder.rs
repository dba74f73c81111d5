//! Skills from a `file://` prefix, a local folder read by the disk rules: the change time that
//! tells an edit, a prefix that is a file or missing, and links, FIFOs, names that cannot be keys
//! and files swapped or replaced while loads run, none of which is ever served.
#![allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]

#[path = "support/skills.rs"]
mod skills;

use std::sync::Arc;

use skillbook_store::{Loaded, ObjectSource, StoreError};
use skills::{names, skill_md};

/// Sets the modification time of each regular file below `folder` an hour back: a file changed
/// within the last two seconds is read again at every load, as its times cannot tell a change
/// made in the same tick.
fn age(folder: &std::path::Path) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let entry = entry.unwrap();
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            age(&entry.path());
        } else if kind.is_file() {
            let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
            std::fs::File::options()
                .write(true)
                .open(entry.path())
                .unwrap()
                .set_modified(hour_ago)
                .unwrap();
        }
    }
}

#[tokio::test]
async fn a_file_url_serves_a_local_folder() {
    let directory = tempfile::tempdir().unwrap();
    let skill = directory.path().join("skills/pdf");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(skill.join("SKILL.md"), skill_md("pdf", "Fill PDF forms.")).unwrap();
    let url = format!("file://{}/skills", directory.path().display());
    let source = ObjectSource::from_url(&url, []).unwrap();
    let loaded = source.load().await.unwrap();
    assert_eq!(loaded.skills.len(), 1);
    assert_eq!(loaded.skills[0].name().as_str(), "pdf");
    // Just written: read again, as a change in the same tick would be unseen.
    let again = source.load().await.unwrap();
    assert_eq!((again.downloaded, again.reused), (1, 0));
    age(directory.path());
    source.load().await.unwrap();
    let warm = source.load().await.unwrap();
    assert_eq!((warm.downloaded, warm.reused), (0, 1));
    // Replaced by a file of the same size and modification time: its change time tells.
    let file = skill.join("SKILL.md");
    let modified = std::fs::metadata(&file).unwrap().modified().unwrap();
    std::fs::write(&file, skill_md("pdf", "Fill PDF FORMS.")).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    let edited = source.load().await.unwrap();
    assert_eq!((edited.downloaded, edited.reused), (1, 0));
    assert_eq!(edited.skills[0].description(), "Fill PDF FORMS.");
}

#[tokio::test]
async fn a_local_prefix_naming_a_file_cannot_be_listed() {
    let directory = tempfile::tempdir().unwrap();
    let file = directory.path().join("skills");
    std::fs::write(&file, "not a folder").unwrap();
    let url = format!("file://{}", file.display());
    let error = ObjectSource::from_url(&url, [])
        .unwrap()
        .load()
        .await
        .unwrap_err();
    assert!(matches!(error, StoreError::List { .. }), "{error}");
    assert!(error.to_string().contains("is not a folder"), "{error}");
}

#[tokio::test]
async fn a_missing_local_prefix_has_no_skills() {
    let directory = tempfile::tempdir().unwrap();
    let url = format!("file://{}/missing", directory.path().display());
    let loaded = ObjectSource::from_url(&url, [])
        .unwrap()
        .load()
        .await
        .unwrap();
    assert!(loaded.skills.is_empty());
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
}

/// A `file://` prefix is read beneath its folder: a link or a FIFO inside a skill is reported
/// and never followed or opened, a file name that cannot be a key is reported, and every other
/// file is still served.
#[cfg(unix)]
#[tokio::test]
async fn a_file_url_never_follows_links_nor_opens_fifos_and_one_bad_name_hides_nothing() {
    use std::os::unix::ffi::OsStrExt;

    let directory = tempfile::tempdir().unwrap();
    let outside = directory.path().join("secret.txt");
    std::fs::write(&outside, "outside the prefix").unwrap();
    let skills = directory.path().join("skills");
    let pdf = skills.join("pdf");
    std::fs::create_dir_all(pdf.join("refs")).unwrap();
    std::fs::write(pdf.join("SKILL.md"), skill_md("pdf", "Fill PDF forms.")).unwrap();
    std::fs::write(pdf.join("refs/forms.md"), "# Forms\n").unwrap();
    std::os::unix::fs::symlink(&outside, pdf.join("refs/secret.md")).unwrap();
    // Reported wherever it is: a link to a folder may hold skills.
    std::os::unix::fs::symlink(&pdf, skills.join("linked")).unwrap();
    std::os::unix::fs::symlink(directory.path(), pdf.join("up")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(pdf.join("refs/pipe.md"))
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::write(
        pdf.join(std::ffi::OsStr::from_bytes(b"bad\xffname.md")),
        "x",
    )
    .unwrap();
    std::fs::write(pdf.join("refs/bell\u{7}.md"), "x").unwrap();
    // Outside every skill: neither served nor reported.
    std::fs::write(skills.join("README.md"), "Not a skill.").unwrap();
    let sql = skills.join("sql");
    std::fs::create_dir_all(&sql).unwrap();
    std::fs::write(sql.join("SKILL.md"), skill_md("sql", "Query databases.")).unwrap();
    age(&skills);

    let url = format!("file://{}", skills.display());
    let source = ObjectSource::from_url(&url, []).unwrap();
    let loaded = source.load().await.unwrap();
    assert_eq!(names(&loaded), ["pdf", "sql"]);
    let served: Vec<String> = loaded.skills[0]
        .files()
        .map(|(path, _)| path.to_owned())
        .collect();
    // Besides its SKILL.md.
    assert_eq!(served, ["refs/forms.md"], "{:?}", loaded.problems);
    let problems = loaded.problems.join("\n");
    for key in [
        "pdf/refs/secret.md",
        "pdf/up",
        "`linked`",
        "pdf/refs/pipe.md",
        "bad\u{fffd}name.md",
        "bell",
    ] {
        assert!(problems.contains(key), "{key} not reported:\n{problems}");
    }
    assert!(!problems.contains("README"), "{problems}");
    assert!(!problems.contains("outside the prefix"), "{problems}");
    assert_eq!(loaded.problems.len(), 6, "{problems}");

    // An edit is read again; the rest is reused.
    std::fs::write(pdf.join("refs/forms.md"), "# Forms, edited\n").unwrap();
    let warm = source.load().await.unwrap();
    assert_eq!(
        (warm.downloaded, warm.reused),
        (1, 3),
        "{:?}",
        warm.problems
    );
}

/// Planted in a file of the prefix outside every skill; no read may ever return it.
const OUTSIDE_MARKER: &str = "OUTSIDE-EVERY-SKILL-5e1d";

/// Planted in another skill's `.git/config`; no read may ever return it.
const GIT_MARKER: &str = "GIT-CONFIG-OF-SQL-9b27";

/// A `file://` prefix whose links would stay under it, were they followed:
///
/// ```text
/// skills/pdf/SKILL.md, skills/pdf/refs/forms.md, skills/pdf/docs/{config,README.md}
/// skills/sql/SKILL.md, skills/sql/.git/config (GIT_MARKER)
/// skills/outside/README.md (OUTSIDE_MARKER; no skill holds it)
/// ```
///
/// Returns the prefix; `temporary` holds it.
#[cfg(unix)]
fn prefix_with_secrets(temporary: &std::path::Path) -> std::path::PathBuf {
    let skills = temporary.join("skills");
    let pdf = skills.join("pdf");
    std::fs::create_dir_all(pdf.join("refs")).unwrap();
    std::fs::create_dir_all(pdf.join("docs")).unwrap();
    std::fs::write(pdf.join("SKILL.md"), skill_md("pdf", "Fill PDF forms.")).unwrap();
    std::fs::write(pdf.join("refs/forms.md"), "# Forms\n").unwrap();
    std::fs::write(pdf.join("docs/config"), "docs config\n").unwrap();
    std::fs::write(pdf.join("docs/README.md"), "docs readme\n").unwrap();
    let sql = skills.join("sql");
    std::fs::create_dir_all(sql.join(".git")).unwrap();
    std::fs::write(sql.join("SKILL.md"), skill_md("sql", "Query databases.")).unwrap();
    std::fs::write(sql.join(".git/config"), GIT_MARKER).unwrap();
    std::fs::create_dir_all(skills.join("outside")).unwrap();
    std::fs::write(skills.join("outside/README.md"), OUTSIDE_MARKER).unwrap();
    skills
}

/// Every file a load serves, by key below the prefix (skill files included).
fn served(loaded: &Loaded) -> Vec<(String, Vec<u8>)> {
    let mut served = Vec::new();
    for skill in &loaded.skills {
        let folder = skill.name().as_str();
        served.push((
            format!("{folder}/SKILL.md"),
            skill.skill_md().as_bytes().to_vec(),
        ));
        for (path, bytes) in skill.files() {
            served.push((format!("{folder}/{path}"), bytes.to_vec()));
        }
    }
    served
}

/// Fails when a load served the bytes of a file that no link may reach.
fn assert_no_secret(loaded: &Loaded) {
    for (key, bytes) in served(loaded) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(OUTSIDE_MARKER) && !text.contains(GIT_MARKER),
            "`{key}` served the bytes of a file reached through a link: {text}"
        );
    }
    for problem in &loaded.problems {
        assert!(
            !problem.contains(OUTSIDE_MARKER) && !problem.contains(GIT_MARKER),
            "{problem}"
        );
    }
}

/// A link present when the prefix is listed is reported and never served, also one whose
/// target stays under the prefix: a file outside every skill, another skill's `.git/config`,
/// or a folder.
#[cfg(unix)]
#[tokio::test]
async fn a_file_url_reports_links_that_stay_under_the_prefix_and_never_serves_them() {
    use std::os::unix::fs::symlink;

    let directory = tempfile::tempdir().unwrap();
    let skills = prefix_with_secrets(directory.path());
    let pdf = skills.join("pdf");
    symlink("../../outside/README.md", pdf.join("refs/readme.md")).unwrap();
    symlink("../sql/.git/config", pdf.join("git-config.md")).unwrap();
    symlink("../sql/.git", pdf.join("git")).unwrap();
    symlink("../outside", pdf.join("more")).unwrap();

    let url = format!("file://{}", skills.display());
    let loaded = ObjectSource::from_url(&url, [])
        .unwrap()
        .load()
        .await
        .unwrap();
    assert_no_secret(&loaded);
    assert_eq!(names(&loaded), ["pdf", "sql"]);
    let files: Vec<&str> = loaded.skills[0].files().map(|(path, _)| path).collect();
    assert_eq!(files, ["docs/README.md", "docs/config", "refs/forms.md"]);
    let problems = loaded.problems.join("\n");
    for key in [
        "`pdf/refs/readme.md`",
        "`pdf/git-config.md`",
        "`pdf/git`",
        "`pdf/more`",
    ] {
        assert!(
            problems.contains(&format!("{key} is left out: it is a symbolic link")),
            "{key} not reported:\n{problems}"
        );
    }
    assert_eq!(loaded.problems.len(), 4, "{problems}");
}

/// Swaps two names atomically (`renameat2` with `RENAME_EXCHANGE`): a file or folder and a
/// link, so each name always holds one or the other.
#[cfg(target_os = "linux")]
fn exchange(first: &std::path::Path, second: &std::path::Path) -> std::io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    Ok(renameat_with(
        CWD,
        first,
        CWD,
        second,
        RenameFlags::EXCHANGE,
    )?)
}

/// Stops the swapping threads when dropped, also when an assertion fails.
struct StopOnDrop(Arc<std::sync::atomic::AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// A live race: while loads run, one thread keeps swapping a file of a skill with a link to a
/// file outside every skill and with one to another skill's `.git/config`, and another thread
/// keeps swapping a folder of the skill with links to folders holding them. No load ever serves
/// their bytes, every file served holds its own bytes, and once the swapping stops the next load
/// serves everything again.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_file_url_never_serves_what_a_link_swapped_in_during_loads_points_at() {
    use std::os::unix::fs::symlink;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Loads run against the swapping (each lists the prefix and opens every file).
    const LOADS: usize = 1_000;

    let directory = tempfile::tempdir().unwrap();
    let skills = prefix_with_secrets(directory.path());
    let pdf = skills.join("pdf");
    // The links, kept outside the prefix until swapped in (their targets are relative to the
    // place they are swapped into).
    let stash = directory.path().join("stash");
    std::fs::create_dir_all(&stash).unwrap();
    let file_links = [
        (stash.join("to-outside.md"), "../../outside/README.md"),
        (stash.join("to-git-config.md"), "../../sql/.git/config"),
    ];
    let folder_links = [
        (stash.join("to-git"), "../sql/.git"),
        (stash.join("to-outside"), "../outside"),
    ];
    for (link, target) in file_links.iter().chain(&folder_links) {
        symlink(target, link).unwrap();
    }
    let expected: std::collections::HashMap<&str, &[u8]> = [
        ("pdf/refs/forms.md", &b"# Forms\n"[..]),
        ("pdf/docs/config", b"docs config\n"),
        ("pdf/docs/README.md", b"docs readme\n"),
    ]
    .into_iter()
    .collect();

    let stop = Arc::new(AtomicBool::new(false));
    let guard = StopOnDrop(Arc::clone(&stop));
    let swapper = |place: std::path::PathBuf, links: [(std::path::PathBuf, &'static str); 2]| {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut swaps = 0_u64;
            while !stop.load(Ordering::SeqCst) {
                for (link, _) in &links {
                    // Swapped back at once: the place holds the file or folder again.
                    let swapped = exchange(&place, link).and_then(|()| {
                        std::thread::yield_now();
                        exchange(&place, link)
                    });
                    if let Err(error) = swapped {
                        // The test failed and its folder is being removed.
                        assert!(stop.load(Ordering::SeqCst), "a swap failed: {error}");
                        return swaps;
                    }
                    swaps += 2;
                }
            }
            swaps
        })
    };
    let file_swapper = swapper(pdf.join("refs/forms.md"), file_links);
    let folder_swapper = swapper(pdf.join("docs"), folder_links);

    let url = format!("file://{}", skills.display());
    let source = ObjectSource::from_url(&url, []).unwrap();
    let (mut left_out, mut served_raced) = (0_usize, 0_usize);
    // A hang guard only: nothing is asserted about how long the loads take.
    tokio::time::timeout(std::time::Duration::from_secs(600), async {
        for _ in 0..LOADS {
            let loaded = source.load().await.unwrap();
            assert_no_secret(&loaded);
            for (key, bytes) in served(&loaded) {
                if let Some(expected) = expected.get(key.as_str()) {
                    assert_eq!(&bytes[..], *expected, "`{key}` served other bytes");
                    served_raced += 1;
                }
            }
            left_out += loaded.problems.len();
        }
    })
    .await
    .expect("the loads did not finish within ten minutes");
    drop(guard);
    let swaps = file_swapper.join().unwrap() + folder_swapper.join().unwrap();
    eprintln!(
        "{LOADS} loads during {swaps} swaps: {served_raced} raced files served, \
         {left_out} left out"
    );

    // Each name holds its file or folder again: the next load serves everything.
    let loaded = source.load().await.unwrap();
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    let mut keys: Vec<String> = served(&loaded).into_iter().map(|(key, _)| key).collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "pdf/SKILL.md",
            "pdf/docs/README.md",
            "pdf/docs/config",
            "pdf/refs/forms.md",
            "sql/SKILL.md"
        ]
    );
}

/// A live race: while loads run, a thread keeps replacing a file of a skill by another (a new
/// inode each time, renamed into place as editors save). A load serves it whole, one version,
/// or leaves it out saying it was replaced since the listing; once the replacing stops, the next
/// load serves the last version.
#[cfg(unix)]
#[tokio::test]
async fn a_file_url_serves_a_file_replaced_during_loads_whole_or_leaves_it_out() {
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Loads run against the replacing.
    const LOADS: usize = 500;

    let directory = tempfile::tempdir().unwrap();
    let skills = prefix_with_secrets(directory.path());
    let forms = skills.join("pdf/refs/forms.md");
    let stop = Arc::new(AtomicBool::new(false));
    let guard = StopOnDrop(Arc::clone(&stop));
    let replacer = {
        let (stop, forms) = (Arc::clone(&stop), forms.clone());
        // Written outside the prefix, then renamed into place: never seen half written.
        let fresh = directory.path().join("forms.fresh");
        std::thread::spawn(move || {
            let mut version = 0_u64;
            while !stop.load(Ordering::SeqCst) {
                let next = version + 1;
                let replaced = std::fs::write(&fresh, format!("version {next}\n"))
                    .and_then(|()| std::fs::rename(&fresh, &forms));
                if let Err(error) = replaced {
                    // The test failed and its folder is being removed.
                    assert!(stop.load(Ordering::SeqCst), "a replacement failed: {error}");
                    break;
                }
                version = next;
            }
            version
        })
    };

    let url = format!("file://{}", skills.display());
    let source = ObjectSource::from_url(&url, []).unwrap();
    let mut replaced = 0_usize;
    tokio::time::timeout(std::time::Duration::from_secs(600), async {
        for _ in 0..LOADS {
            let loaded = source.load().await.unwrap();
            match loaded.skills[0].file("refs/forms.md") {
                Some(bytes) => {
                    let text = std::str::from_utf8(bytes).unwrap();
                    let number = text
                        .strip_prefix("version ")
                        .and_then(|rest| rest.strip_suffix('\n'));
                    assert!(
                        number.is_some_and(|number| number.parse::<u64>().is_ok())
                            || text == "# Forms\n",
                        "not one whole version: {text:?}"
                    );
                    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
                }
                None => {
                    assert_eq!(loaded.problems.len(), 1, "{:?}", loaded.problems);
                    assert!(
                        loaded.problems[0].contains(
                            "`pdf/refs/forms.md` is left out: it was replaced since the prefix \
                             was listed"
                        ),
                        "{}",
                        loaded.problems[0]
                    );
                    replaced += 1;
                }
            }
        }
    })
    .await
    .expect("the loads did not finish within ten minutes");
    drop(guard);
    let versions = replacer.join().unwrap();
    eprintln!("{LOADS} loads during {versions} replacements: {replaced} left out as replaced");

    let loaded = source.load().await.unwrap();
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    assert_eq!(
        loaded.skills[0].file("refs/forms.md"),
        Some(format!("version {versions}\n").as_bytes())
    );
}
