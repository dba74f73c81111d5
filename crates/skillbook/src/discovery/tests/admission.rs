//! An [`Admission`]: a refused skill is reported in its place, by every way of running
//! discovery, and shadows nothing.

use std::sync::Mutex;

use super::*;
use crate::diagnostic::DiagnosticCode;

/// Refuses the skills in these folders, and remembers the names it was asked about.
#[derive(Debug, Default)]
struct Refuse {
    folders: Vec<PathBuf>,
    asked: Mutex<Vec<String>>,
}

impl Admission for Refuse {
    fn admit(&self, skill: &Skill) -> Result<(), Diagnostic> {
        let name = skill.name().to_string();
        self.asked.lock().unwrap().push(name.clone());
        if self
            .folders
            .iter()
            .any(|folder| folder == skill.directory())
        {
            return Err(Diagnostic::error(
                DiagnosticCode::LockMismatch,
                &skill.location,
                format!("{name} refused"),
            ));
        }
        Ok(())
    }
}

#[test]
fn a_refused_skill_is_a_diagnostic_in_its_place_and_shadows_nothing() {
    let workspace = workspace();
    named(&workspace.path().join(".agents/skills"), "alpha", "alpha");
    let refused = named(&workspace.path().join(".agents/skills"), "pdf", "pdf");
    // A second `pdf`, in a later root: it wins once the first is refused.
    let later = named(&workspace.path().join(".claude/skills"), "pdf", "pdf");
    let refuse = Arc::new(Refuse {
        folders: vec![refused.parent().unwrap().to_path_buf()],
        ..Refuse::default()
    });
    let discovery = Discovery::new(workspace.path())
        .home(Home::Off)
        .admission(refuse.clone());

    let found = discovery.discover();
    assert_eq!(names(&found), ["alpha", "pdf"]);
    assert_eq!(found.skills[1].location, later);
    assert_eq!(codes(&found), ["lock_mismatch"]);

    let mut each = Vec::new();
    discovery.discover_each(|finding| match finding {
        Finding::Skill(skill) => each.push(skill.name().to_string()),
        Finding::Diagnostic(diagnostic) => each.push(diagnostic.code.as_str().to_owned()),
    });
    assert_eq!(each, ["alpha", "lock_mismatch", "pdf"]);
    // Asked once per skill found, in walk order, by each run.
    let asked = refuse.asked.lock().unwrap().clone();
    assert_eq!(asked, ["alpha", "pdf", "pdf", "alpha", "pdf", "pdf"]);
}

#[test]
fn discoveries_are_equal_only_with_the_same_admission() {
    let workspace = workspace();
    let refuse: Arc<dyn Admission> = Arc::new(Refuse::default());
    let plain = Discovery::new(workspace.path());
    let with = plain.clone().admission(Arc::clone(&refuse));
    assert_ne!(plain, with);
    assert_eq!(with, plain.clone().admission(Arc::clone(&refuse)));
    assert_ne!(with, plain.admission(Arc::new(Refuse::default())));
}

/// Admits everything at discovery, and refuses reads once `closed` is set.
#[derive(Debug, Default)]
struct Gate {
    closed: std::sync::atomic::AtomicBool,
}

impl Admission for Gate {
    fn admit(&self, _skill: &Skill) -> Result<(), Diagnostic> {
        Ok(())
    }

    fn recheck(&self, directory: &Path) -> Result<(), String> {
        if self.closed.load(std::sync::atomic::Ordering::SeqCst) {
            let name = directory.file_name().unwrap().to_string_lossy();
            return Err(format!("skill `{name}` changed"));
        }
        Ok(())
    }
}

#[test]
fn a_reader_asks_the_admission_again_before_each_read() {
    let workspace = workspace();
    let location = named(&workspace.path().join(".agents/skills"), "pdf", "pdf");
    let gate = Arc::new(Gate::default());
    let found = Discovery::new(workspace.path())
        .home(Home::Off)
        .admission(gate.clone())
        .discover();
    let reader = crate::SkillReader::new(&found);
    assert!(reader.open(&location).is_ok());

    gate.closed.store(true, std::sync::atomic::Ordering::SeqCst);
    let Err(refused) = reader.open(&location) else {
        panic!("a read after the admission closed is refused");
    };
    assert_eq!(refused.code().as_str(), "denied");
    assert!(
        refused.to_string().contains("skill `pdf` changed"),
        "{refused}"
    );
    let call = reader.call_json(&serde_json::json!({"path": "skill://pdf/SKILL.md"}));
    assert_eq!(call["error"], "denied", "{call}");
    assert!(reader.skill_text("pdf", 1024).is_err());
}
