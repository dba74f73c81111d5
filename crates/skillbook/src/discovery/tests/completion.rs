//! Settling skills in walk order when a parse result is missing.

use super::*;

/// A skill whose parse result never comes back (its parser stopped) is reported, not dropped,
/// and the skills after it are still completed.
#[test]
fn a_skill_without_a_result_is_reported_and_the_rest_completed() {
    use crate::boundary::open::FileId;
    use crate::frontmatter::SkillDocument;
    use crate::skill::{Place, SkillFile, SkillHead};

    let skill = |name: &str| {
        let place = Place {
            root: 0,
            below: 1,
            id: FileId::of_parts(1, 1),
            file: SkillFile::Named("SKILL.md"),
        };
        Skill::found(
            PathBuf::from(format!("/r/{name}/SKILL.md")),
            place,
            Source::Workspace,
        )
    };
    let mut completion = complete::Completion::new(complete::Sink::Keep(Default::default()));
    let first = completion.skill(skill("lost"), FileId::of_parts(1, 2));
    let second = completion.skill(skill("kept"), FileId::of_parts(1, 3));
    let reread = complete::Reread {
        roots: &[],
        limits: Limits::default(),
        keep: crate::discovery::parse::Keep::Head,
    };
    let document = SkillDocument {
        name: Some("kept".to_owned()),
        description: Some("Kept.".to_owned()),
        ..SkillDocument::default()
    };
    completion.results(
        [(
            second,
            parse::Parsed::Read(
                SkillHead::from(document).settle(Path::new("/r/kept/SKILL.md"), &mut Vec::new()),
                Vec::new(),
                None,
            ),
        )],
        &reread,
    );
    assert_eq!(first, 0);
    let complete::Sink::Keep(kept) = completion.finish(&reread) else {
        panic!("a completion keeps what it is asked to keep");
    };
    let names: Vec<&str> = kept
        .skills
        .iter()
        .map(|skill| skill.name.as_str())
        .collect();
    assert_eq!(names, ["kept"]);
    assert_eq!(kept.diagnostics.len(), 1);
    assert_eq!(kept.diagnostics[0].code, DiagnosticCode::Unreadable);
    assert_eq!(kept.diagnostics[0].path, PathBuf::from("/r/lost/SKILL.md"));
}
