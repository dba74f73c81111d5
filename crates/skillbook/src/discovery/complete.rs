//! Completing skills in walk order as their parse results come back.
//!
//! The walk meets skill files and its own diagnostics in one order; the parser threads finish
//! the files in another. Everything the walk meets joins one queue in the walk's order, and the
//! front of the queue is settled as soon as it can be: a diagnostic at once, a skill once its
//! file is parsed. So the skills and diagnostics come out exactly as a serial walk would give
//! them, and what waits is only what the parsers have in hand (a few batches), never every
//! skill of the walk.

use std::collections::{BTreeMap, VecDeque};
use std::io;
use std::path::Path;
use std::sync::Arc;

use super::first_names::FirstNames;
use super::parse::{self, Job, Parsed};
use super::walk::{Inspected, changed, unreadable, verify_failure};
use super::{Admission, DuplicatePolicy, Finding, Limits, RootRecord, skill_file};
use crate::boundary::open::{self, FileId};
use crate::diagnostic::{Diagnostic, DiagnosticCode, Severity};
use crate::skill::{Skill, SkillFile};

/// What the walk met, waiting for its turn.
enum Entry {
    Diagnostic(Diagnostic),
    /// A skill found, awaiting its file's parse result: its slot is its place among the skills.
    Skill {
        skill: Skill,
        slot: usize,
        file_id: FileId,
    },
}

/// Where settled skills and diagnostics go.
pub(super) enum Sink<'e> {
    /// Kept, for a [`super::Discovered`] (duplicate names are resolved afterwards).
    Keep(Kept),
    /// Handed over one by one, duplicate names resolved as they come.
    Each(Each<'e>),
}

/// Skills and diagnostics kept in walk order.
#[derive(Default)]
pub(super) struct Kept {
    pub(super) skills: Vec<Skill>,
    pub(super) diagnostics: Vec<Diagnostic>,
    /// Every skill file read, whole, when inspecting (shadowed ones too).
    pub(super) inspected: Vec<Inspected>,
}

/// A receiver of findings, and what it takes to resolve duplicate names without keeping skills.
pub(super) struct Each<'e> {
    each: &'e mut dyn FnMut(Finding),
    duplicates: DuplicatePolicy,
    /// The location of the first skill of each name, by name key.
    first: FirstNames,
}

impl<'e> Each<'e> {
    pub(super) fn new(each: &'e mut dyn FnMut(Finding), duplicates: DuplicatePolicy) -> Self {
        Each {
            each,
            duplicates,
            first: FirstNames::default(),
        }
    }
}

impl Sink<'_> {
    fn diagnostic(&mut self, diagnostic: Diagnostic) {
        match self {
            Sink::Keep(kept) => kept.diagnostics.push(diagnostic),
            Sink::Each(each) => (each.each)(Finding::Diagnostic(diagnostic)),
        }
    }

    fn skill(&mut self, skill: Skill) {
        match self {
            Sink::Keep(kept) => kept.skills.push(skill),
            Sink::Each(each) => {
                let first = each
                    .first
                    .first_or_insert(skill.name.as_str(), &skill.location);
                if let Some(winner) = first {
                    let diagnostic = duplicate_diagnostic(each.duplicates, &skill, &winner);
                    (each.each)(Finding::Diagnostic(diagnostic));
                } else {
                    (each.each)(Finding::Skill(skill));
                }
            }
        }
    }

    fn inspected(&mut self, inspected: Inspected) {
        if let Sink::Keep(kept) = self {
            kept.inspected.push(inspected);
        }
    }
}

/// The diagnostic for a skill that lost its name to an earlier one.
pub(super) fn duplicate_diagnostic(
    policy: DuplicatePolicy,
    loser: &Skill,
    winner: &Path,
) -> Diagnostic {
    let (severity, code) = match policy {
        DuplicatePolicy::Shadow => (Severity::Warning, DiagnosticCode::Shadowed),
        DuplicatePolicy::Reject => (Severity::Error, DiagnosticCode::DuplicateName),
    };
    Diagnostic::new(
        severity,
        code,
        &loser.location,
        format!(
            "skill `{}` is ignored: {} has the same name and comes first. Rename one of \
             them (names are compared ignoring case)",
            loser.name,
            winner.display()
        ),
    )
}

/// What reading a skill file again needs from the walk.
pub(super) struct Reread<'w> {
    pub(super) roots: &'w [RootRecord],
    pub(super) limits: Limits,
    pub(super) keep: super::parse::Keep,
}

/// The queue of what the walk met, settled from the front.
pub(super) struct Completion<'e> {
    queue: VecDeque<Entry>,
    /// Parse results that came back before the skills ahead of them, by slot.
    early: BTreeMap<usize, Parsed>,
    /// How many skills the walk has found.
    found: usize,
    /// Settle nothing before [`Completion::finish`] (a test holds results back this way).
    held: bool,
    /// Decides which skills are handed on.
    admission: Option<Arc<dyn Admission>>,
    sink: Sink<'e>,
}

impl<'e> Completion<'e> {
    pub(super) fn new(sink: Sink<'e>) -> Self {
        Completion {
            queue: VecDeque::new(),
            early: BTreeMap::new(),
            found: 0,
            held: false,
            admission: None,
            sink,
        }
    }

    /// Hands on only the skills `admission` admits.
    pub(super) fn admit_with(&mut self, admission: Option<Arc<dyn Admission>>) {
        self.admission = admission;
    }

    /// Settles nothing until the walk has finished.
    #[cfg(test)]
    pub(super) fn hold(&mut self) {
        self.held = true;
    }

    /// How many skills the walk has found so far.
    pub(super) fn found(&self) -> usize {
        self.found
    }

    /// A diagnostic of the walk itself, in its place.
    pub(super) fn diagnostic(&mut self, diagnostic: Diagnostic) {
        if self.queue.is_empty() && !self.held {
            self.sink.diagnostic(diagnostic);
        } else {
            self.queue.push_back(Entry::Diagnostic(diagnostic));
        }
    }

    /// A skill found, whose file's result will come back under the slot returned.
    pub(super) fn skill(&mut self, skill: Skill, file_id: FileId) -> usize {
        let slot = self.found;
        self.found += 1;
        self.queue.push_back(Entry::Skill {
            skill,
            slot,
            file_id,
        });
        slot
    }

    /// Parse results, by slot; settles what they let settle.
    pub(super) fn results(
        &mut self,
        results: impl IntoIterator<Item = (usize, Parsed)>,
        reread: &Reread<'_>,
    ) {
        self.early.extend(results);
        if !self.held {
            self.settle(reread);
        }
    }

    /// Settles the rest once the walk and every parser have finished. A skill whose result
    /// never came back (its parser stopped) is reported as unreadable, never dropped silently,
    /// and the skills after it are still completed.
    pub(super) fn finish(mut self, reread: &Reread<'_>) -> Sink<'e> {
        self.held = false;
        self.settle(reread);
        while let Some(entry) = self.queue.pop_front() {
            match entry {
                Entry::Diagnostic(diagnostic) => self.sink.diagnostic(diagnostic),
                Entry::Skill {
                    skill,
                    slot,
                    file_id,
                } => match self.early.remove(&slot) {
                    Some(parsed) => self.complete(skill, parsed, file_id, reread),
                    None => {
                        let stopped = io::Error::other("its parser stopped before reading it");
                        self.sink.diagnostic(unreadable(&skill.location, &stopped));
                    }
                },
            }
        }
        self.sink
    }

    /// Settles the front of the queue while it can.
    fn settle(&mut self, reread: &Reread<'_>) {
        while let Some(front) = self.queue.front() {
            if let Entry::Skill { slot, .. } = front
                && !self.early.contains_key(slot)
            {
                return;
            }
            match self.queue.pop_front() {
                Some(Entry::Diagnostic(diagnostic)) => self.sink.diagnostic(diagnostic),
                Some(Entry::Skill {
                    skill,
                    slot,
                    file_id,
                }) => {
                    if let Some(parsed) = self.early.remove(&slot) {
                        self.complete(skill, parsed, file_id, reread);
                    }
                }
                None => return,
            }
        }
    }

    /// Completes one skill from its file's result, or reports why it cannot be.
    fn complete(&mut self, mut skill: Skill, parsed: Parsed, file_id: FileId, reread: &Reread) {
        let parsed = match parsed {
            Parsed::NeedsMore => read_again(reread, &skill, file_id),
            other => other,
        };
        match parsed {
            Parsed::Read(head, found, whole) => {
                if let Some(whole) = whole {
                    let (document, text) = *whole;
                    self.sink.inspected(Inspected {
                        path: skill.location.clone(),
                        document,
                        text,
                    });
                }
                skill.read_from(head);
                for diagnostic in found {
                    self.sink.diagnostic(diagnostic);
                }
                let refused = self
                    .admission
                    .as_ref()
                    .and_then(|admission| admission.admit(&skill).err());
                match refused {
                    Some(refused) => self.sink.diagnostic(refused),
                    None => self.sink.skill(skill),
                }
            }
            Parsed::Failed(error) => self.sink.diagnostic(unreadable(&skill.location, &error)),
            Parsed::NeedsMore => {}
        }
    }
}

/// Reads all of a skill file whose beginning was not enough, reaching it again beneath its
/// root by handles and checking that the folder and the file are the ones the walk met.
fn read_again(reread: &Reread<'_>, skill: &Skill, file_id: FileId) -> Parsed {
    let opened = match &skill.place.file {
        SkillFile::Linked(link) => open::open_followed_file(&link.target),
        SkillFile::Named(name) => reread
            .roots
            .get(skill.place.root)
            .ok_or_else(changed)
            .and_then(|root| {
                let directory =
                    open::open_verified(&root.anchor, root.id).map_err(verify_failure)?;
                let folder =
                    open::open_dir_path(&directory, skill.place.relative(skill.directory()))?;
                let folder = open::verify(folder, skill.place.id).map_err(verify_failure)?;
                open::open_file_nofollow(&folder, name.as_ref())
            }),
    };
    let mut bytes = Vec::new();
    let max_bytes = reread.limits.max_file_bytes;
    let read = opened.and_then(|mut opened| {
        if FileId::of(&opened.metadata) != file_id {
            return Err(changed());
        }
        let len = opened.metadata.len();
        skill_file::read_head(&mut opened.file, len, max_bytes, true, &mut bytes)?;
        Ok(len)
    });
    match read {
        Ok(len) => parse::parse(
            &Job {
                slot: 0,
                bytes: 0..bytes.len(),
                len,
                complete: true,
                file: None,
                error: None,
                path: skill.location.clone(),
                max_bytes,
                keep: reread.keep,
            },
            &bytes,
        ),
        Err(error) => Parsed::Failed(error),
    }
}
