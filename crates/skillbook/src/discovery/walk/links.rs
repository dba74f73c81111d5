//! Symbolic links met by the walk: followed under `Follow` (each followed directory a root of
//! its own, each followed skill file read alone), skipped and reported otherwise.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::{Found, Walker};
use crate::boundary::open::{self, FileId};
use crate::diagnostic::{Diagnostic, DiagnosticCode};
use crate::discovery::SymlinkPolicy;
use crate::skill::{LinkedFile, SkillFile};
use crate::sources::SKILL_FILE_NAMES;

impl Walker<'_> {
    /// Follows a skill-file link (under `Follow`): that one file is the skill file; its folder
    /// does not become readable.
    pub(super) fn follow_file_link(&mut self, link: PathBuf) -> Option<Found> {
        let target = match open::resolve_link(&link) {
            Ok(target) => target,
            Err(error) => return self.link_failed(&link, &error),
        };
        match open::open_followed_file(&target) {
            Ok(opened) if opened.metadata.is_file() => {
                let id = FileId::of(&opened.metadata);
                Some(Found {
                    opened,
                    path: link,
                    file: SkillFile::Linked(Box::new(LinkedFile { target, id })),
                })
            }
            Ok(_) => {
                self.not_regular(&link);
                None
            }
            Err(error) => self.link_failed(&link, &error),
        }
    }

    /// A symlink in a collection: its target directory under `Follow`, else nothing (reported).
    pub(super) fn directory_link(&mut self, link: &Path) -> Option<PathBuf> {
        // A broken link is reported whatever the policy: it may have been meant as a skill folder.
        let metadata = match fs::metadata(link) {
            Ok(metadata) => metadata,
            Err(error) => return self.link_failed(link, &error),
        };
        if !metadata.is_dir() {
            return None;
        }
        if self.leads_to_found_skill(link) {
            // A client's link to a skill (or a root) found already: the same skill, silently.
            return None;
        }
        if self.symlinks == SymlinkPolicy::Skip {
            self.symlink_skipped(link);
            return None;
        }
        let target = match open::resolve_link(link) {
            Ok(target) => target,
            Err(error) => return self.link_failed(link, &error),
        };
        let already_seen = fs::metadata(&target)
            .map(|metadata| self.seen_directories.contains(&FileId::of(&metadata)))
            .unwrap_or(false);
        if already_seen {
            self.diagnostics.push(Diagnostic::warning(
                DiagnosticCode::SymlinkLoop,
                link,
                format!(
                    "not followed: {} was already searched (a symlink loop or a second path to \
                     the same directory)",
                    target.display()
                ),
            ));
            return None;
        }
        Some(target)
    }

    /// Whether `link` leads to a skill folder the walk has found already (its skill file read).
    /// Such a link — `skillbook add --agent` makes them, so that other clients see the skill in
    /// their own folder — is the same skill, neither reported nor shadowed (SPEC §2.4). Only
    /// identities are compared; nothing is read through the link.
    pub(super) fn leads_to_found_skill(&self, link: &Path) -> bool {
        SKILL_FILE_NAMES.iter().any(|name| {
            fs::symlink_metadata(link.join(name))
                .is_ok_and(|file| file.is_file() && self.seen_files.contains(&FileId::of(&file)))
        })
    }

    /// Whether `path` (a root reached through a link) is a root the walk has searched already,
    /// as when a client's folder links to `.agents/skills`: the same skills, silently.
    pub(super) fn leads_to_searched_root(&self, path: &Path) -> bool {
        fs::metadata(path).is_ok_and(|metadata| {
            let id = FileId::of(&metadata);
            metadata.is_dir() && self.roots.iter().any(|root| root.id == id)
        })
    }

    pub(super) fn symlink_skipped(&mut self, link: &Path) {
        let target = fs::read_link(link)
            .map(|target| format!(" (to {})", target.display()))
            .unwrap_or_default();
        self.diagnostics.push(Diagnostic::warning(
            DiagnosticCode::SymlinkSkipped,
            link,
            format!(
                "symbolic link{target} skipped: links are not followed by default so the read \
                 boundary stays as declared. Add the target as a root, or follow links \
                 (--symlinks follow)"
            ),
        ));
    }

    /// Reports a link that could not be resolved: broken, or unreadable.
    pub(super) fn link_failed<T>(&mut self, link: &Path, error: &io::Error) -> Option<T> {
        if open::is_absent(error) {
            self.broken_link(link);
        } else {
            self.unreadable(link, error);
        }
        None
    }

    pub(super) fn broken_link(&mut self, link: &Path) {
        self.diagnostics.push(Diagnostic::warning(
            DiagnosticCode::BrokenSymlink,
            link,
            "symbolic link points to nothing; fix or remove it",
        ));
    }
}
