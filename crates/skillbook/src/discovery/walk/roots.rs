//! Opening each root from its anchor, and recording the roots the walk reads.

use std::fs;
use std::path::{Path, PathBuf};

use cap_std::fs::Dir;

use super::{Folder, Handle, MAX_ROOT_LINKS, Pending, Walker};
use crate::boundary::open::{self, Anchor, AnchorFailure, FileId};
use crate::diagnostic::{Diagnostic, DiagnosticCode};
use crate::discovery::cache::FileState;
use crate::discovery::{Root, RootKind, RootRecord, SymlinkPolicy};
use crate::skill::Source;

impl Walker<'_> {
    /// Searches one root. Missing roots and roots that are files are skipped silently.
    pub(in crate::discovery) fn walk_root(&mut self, root: &Root, source: Source) {
        if self.recording() {
            let state = fs::symlink_metadata(&root.path)
                .ok()
                .map(|metadata| FileState::of(&metadata));
            self.stamp(&root.path, false, state);
        }
        let Some((directory, anchor, followed)) = self.open_root(root) else {
            return;
        };
        let path = anchor.path();
        let index = match self.root_positions.get(&path) {
            Some(&index) => index,
            None => match directory.dir_metadata() {
                Ok(metadata) => {
                    self.add_root(path.clone(), anchor, FileId::of(&metadata), followed)
                }
                Err(error) => {
                    self.unreadable(&path, &error);
                    return;
                }
            },
        };
        self.walk_from(Pending {
            handle: Handle::Open(directory),
            folder: Folder {
                path,
                root: index,
                below: 0,
                depth: 0,
                source,
            },
        });
    }

    /// Opens a root from its anchor, following links on the way only under `Follow`.
    pub(super) fn open_root(&mut self, root: &Root) -> Option<(Dir, Anchor, bool)> {
        let mut anchor = root.anchor.clone();
        let mut followed = false;
        for _ in 0..MAX_ROOT_LINKS {
            match open::open_anchored(&anchor) {
                Ok(directory) => return Some((directory, anchor, followed)),
                Err(AnchorFailure::Absent) => {
                    if root.kind == RootKind::Extra {
                        self.extra_root_missing(&root.path);
                    }
                    return None;
                }
                Err(AnchorFailure::Io { path, source }) => {
                    self.unreadable(&path, &source);
                    return None;
                }
                Err(AnchorFailure::Link { path, rest }) => {
                    if self.leads_to_searched_root(&root.path) {
                        // A client's folder linked to a root searched already: the same skills.
                        return None;
                    }
                    if self.symlinks == SymlinkPolicy::Skip {
                        self.symlink_skipped(&path);
                        return None;
                    }
                    let target = match open::resolve_link(&path) {
                        Ok(target) => target,
                        Err(error) => return self.link_failed(&path, &error),
                    };
                    anchor = Anchor {
                        base: target,
                        components: rest,
                    };
                    followed = true;
                }
            }
        }
        self.diagnostics.push(Diagnostic::warning(
            DiagnosticCode::SymlinkLoop,
            &root.path,
            "not followed: too many symbolic links on the way to this root",
        ));
        None
    }

    pub(super) fn add_root(
        &mut self,
        path: PathBuf,
        anchor: Anchor,
        id: FileId,
        followed: bool,
    ) -> usize {
        let index = self.roots.len();
        self.root_positions.insert(path.clone(), index);
        self.roots.push(RootRecord {
            path,
            anchor,
            id,
            followed,
        });
        index
    }

    /// The index of the root at `path` (a followed link's target), recorded now if new.
    pub(super) fn root_index(&mut self, path: &Path, id: FileId) -> usize {
        match self.root_positions.get(path) {
            Some(&index) => index,
            None => self.add_root(path.to_path_buf(), Anchor::exactly(path), id, true),
        }
    }

    /// An extra root the user named is not there: said, unlike a missing default root.
    pub(super) fn extra_root_missing(&mut self, path: &Path) {
        let what = match fs::symlink_metadata(path) {
            Ok(_) => "is not a directory",
            Err(_) => "does not exist",
        };
        self.diagnostics.push(Diagnostic::warning(
            DiagnosticCode::ExtraRootMissing,
            path,
            format!(
                "this extra skills root {what}; check the path (`--extra` on the command line)"
            ),
        ));
    }
}
