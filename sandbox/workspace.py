"""Give a run its own checkouts of the target repo, inside the repo's git directory.

Layout (under the git common dir, so `git status` in the user's tree never sees it):
    perfloop/runs/<run_id>/                 state_dir: audit log, checkpoints, report
    perfloop/worktrees/<run_id>/base        on branch perfloop/<run_id>: the accepted state
    perfloop/worktrees/<run_id>/candidate   detached at the branch head: where patches are tried

Work starts from the user's HEAD (the committed state). Nothing here changes the
user's checked-out branch, HEAD, index or working tree: commits are built in a
private index and land on the run's branch only.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path, PurePosixPath

from perfloop.sandbox.errors import BadInput
from perfloop.sandbox.git import GitError, find_repo, git, git_ok, list_worktrees, split_z, user_tree_dirty
from perfloop.sandbox.inputs import find_ignored_inputs, link_inputs

# Commits are the agent's work, and must not fail for want of a configured identity.
_IDENTITY = {
    "GIT_AUTHOR_NAME": "perfloop", "GIT_AUTHOR_EMAIL": "perfloop@localhost",
    "GIT_COMMITTER_NAME": "perfloop", "GIT_COMMITTER_EMAIL": "perfloop@localhost",
}
_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_TRAILER_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*")
PROPOSAL_TRAILER = "Perfloop-Proposal"

__all__ = ["PROPOSAL_TRAILER", "PatchError", "Workspace", "user_tree_dirty"]


class PatchError(ValueError):
    """A patch that does not apply (or changes nothing); the message holds git's reason."""


class Workspace:
    """The run's isolated checkouts inside the target repo's git dir."""

    def __init__(self, repo_root: Path, run_id: str, target_subdir: str = ""):
        """Locate the repo holding `repo_root`; `target_subdir` is relative to `repo_root`."""
        path = Path(repo_root).absolute()
        if not path.is_dir():
            raise BadInput(f"{path} is not a folder: point perfloop at your pipeline's folder")
        repo = find_repo(path)
        if repo is None:
            raise BadInput(
                f"{path} is not inside a git repository: run `git init` and commit your "
                "pipeline there, or point perfloop at a folder inside a repo"
            )
        if not _RUN_ID.fullmatch(run_id) or run_id.endswith(".lock"):
            raise BadInput(f"run id {run_id!r} must be letters, digits, '.', '_' or '-'")
        subdir = PurePosixPath(repo.prefix or ".", target_subdir)
        if subdir.is_absolute() or ".." in subdir.parts:
            raise BadInput(f"target folder {target_subdir!r} must stay inside {path}")
        self.repo_root = repo.top
        self.run_id = run_id
        self.target_subdir = "" if subdir == PurePosixPath(".") else subdir.as_posix()
        self.git_common_dir = repo.common_dir
        if not repo.has_head:
            raise BadInput(
                f"the repository at {repo.top} has no commits yet: commit your pipeline first "
                "(`git add -A && git commit -m 'initial'`); perfloop works from the committed state"
            )

    @property
    def branch(self) -> str:
        """Return the run's branch name."""
        return f"perfloop/{self.run_id}"

    @property
    def state_dir(self) -> Path:
        """Return (creating it) the folder for the run's audit log, checkpoints and report."""
        path = self.git_common_dir / "perfloop" / "runs" / self.run_id
        path.mkdir(parents=True, exist_ok=True)
        return path

    @property
    def base_tree(self) -> Path:
        """Return the worktree on the run's branch."""
        return self.git_common_dir / "perfloop" / "worktrees" / self.run_id / "base"

    @property
    def candidate_tree(self) -> Path:
        """Return the detached worktree where patches are tried."""
        return self.git_common_dir / "perfloop" / "worktrees" / self.run_id / "candidate"

    def create(self, base_rev: str = "HEAD") -> None:
        """Create the branch at `base_rev` and both worktrees, reusing what a crashed run left."""
        ref = f"refs/heads/{self.branch}"
        if not git_ok("rev-parse", "--verify", "--quiet", ref, cwd=self.repo_root):
            try:
                sha = git("rev-parse", "--verify", f"{base_rev}^{{commit}}", cwd=self.repo_root)
            except GitError:
                raise ValueError(f"{base_rev!r} is not a commit in {self.repo_root}") from None
            git("branch", "--no-track", self.branch, sha.strip(), cwd=self.repo_root)
        self._ensure_worktree(self.base_tree, attached=True)
        self._ensure_worktree(self.candidate_tree, attached=False)
        # A crash between moving the branch and updating the trees leaves them behind.
        self._sync_trees()

    def target_dir(self, tree: Path) -> Path:
        """Return the pipeline's folder inside `tree`."""
        return Path(tree) / self.target_subdir

    def head(self) -> str:
        """Return the sha of the run's branch head."""
        return git("rev-parse", "--verify", f"refs/heads/{self.branch}^{{commit}}",
                   cwd=self.repo_root).strip()

    def apply_to_candidate(self, patch: str) -> list[str]:
        """Apply `patch` to a freshly reset candidate; return the repo-relative paths it touches."""
        head = self.head()
        try:
            _, touched = self._patched_tree(patch, head)
        except PatchError:
            self.reset_candidate()
            raise
        self._set_candidate(head, patch)
        return touched

    def diff_files(self, files: dict[str, str]) -> str:
        """Return the diff from the branch head to the head with ``files`` written; no worktree is touched.

        ``files`` maps paths relative to the target folder to their new text. The new texts are
        staged in a private index over the head (blobs hashed as ``git add`` would, attributes
        applied), so two proposers computing diffs never share a checkout.
        """
        head = self.head()
        with tempfile.TemporaryDirectory(dir=self.state_dir) as scratch:
            env = {"GIT_INDEX_FILE": os.path.join(scratch, "index")}
            git("read-tree", head, cwd=self.repo_root, env=env)
            for relative, text in sorted(files.items()):
                path = (PurePosixPath(self.target_subdir) / relative).as_posix() if self.target_subdir else relative
                listed = git("ls-tree", head, "--", path, cwd=self.repo_root).split()
                mode = listed[0] if listed else "100644"
                blob = git("hash-object", "-w", "--stdin", f"--path={path}", cwd=self.repo_root, stdin=text).strip()
                git("update-index", "--add", "--cacheinfo", f"{mode},{blob},{path}", cwd=self.repo_root, env=env)
            return git("diff", "--cached", "--binary", "--no-ext-diff", "--no-textconv", "--no-renames",
                       "--src-prefix=a/", "--dst-prefix=b/", head, cwd=self.repo_root, env=env)

    def reset_candidate(self) -> None:
        """Put the candidate back at the branch head: no edits, no outputs, inputs still linked."""
        self._set_candidate(self.head(), None)

    def commit(self, patch: str, message: str, trailers: dict[str, str]) -> str:
        """Commit `patch` on the run's branch with `trailers` and return the sha.

        Idempotent: when the head already carries this Perfloop-Proposal, return it.
        Both worktrees then follow the new head.
        """
        head = self.head()
        proposal = trailers.get(PROPOSAL_TRAILER)
        if proposal is not None and self._trailer(head, PROPOSAL_TRAILER) == proposal:
            self._sync_trees()
            return head
        if not message.strip():
            raise ValueError("a commit needs a message saying what the change does")
        for key, value in trailers.items():
            if not _TRAILER_KEY.fullmatch(key) or "\n" in value:
                raise ValueError(f"trailer {key!r}: {value!r} must be a word and a one-line value")
        tree, _ = self._patched_tree(patch, head)
        lines = "".join(f"{key}: {value}\n" for key, value in trailers.items())
        full_message = f"{message.strip()}\n\n{lines}" if lines else f"{message.strip()}\n"
        sha = git("commit-tree", "--no-gpg-sign", tree, "-p", head, cwd=self.repo_root,
                  stdin=full_message, env=_IDENTITY).strip()
        # Compare-and-swap: fails rather than dropping a commit made meanwhile.
        git("update-ref", "-m", f"perfloop: {message.strip().splitlines()[0][:60]}",
            f"refs/heads/{self.branch}", sha, head, cwd=self.repo_root)
        self._sync_trees()
        return sha

    def committed(self, proposal_id: str) -> str | None:
        """Return the head's sha when it is the commit of ``proposal_id`` (a resumed verify finds it there)."""
        head = self.head()
        return head if self._trailer(head, PROPOSAL_TRAILER) == proposal_id else None

    def cleanup(self) -> None:
        """Remove both worktrees; keep the branch and state_dir."""
        registered = list_worktrees(self.repo_root)
        for tree in (self.candidate_tree, self.base_tree):
            if os.path.realpath(tree) in registered:
                git("worktree", "remove", "--force", "--force", str(tree), cwd=self.repo_root)
            if tree.exists():
                shutil.rmtree(tree)  # unlinks symlinks, never follows them
        if self.base_tree.parent.is_dir() and not any(self.base_tree.parent.iterdir()):
            self.base_tree.parent.rmdir()

    def link_ignored_inputs(
        self, source_target_dir: Path, tree: Path, inputs: list[str] | None = None
    ) -> list[str]:
        """Symlink the user's ignored inputs (or the `inputs` globs) into `tree`'s target dir.

        Returns the linked paths, relative to the target dir; a folder linked whole
        (past MAX_LINKED_FILES files) ends with "/". Links survive reset_candidate.
        """
        source = Path(source_target_dir).absolute()
        wanted = find_ignored_inputs(source, inputs)
        linked = link_inputs(source, self.target_dir(tree), wanted)
        records = self._link_records()
        records[str(tree)] = {"source": str(source), "links": linked}
        (self.state_dir / "linked_inputs.json").write_text(json.dumps(records, indent=1))
        return linked

    def linked_sources(self, tree: Path) -> list[Path]:
        """Return the user's paths that link_ignored_inputs linked into `tree`."""
        record = self._link_records().get(str(tree))
        if not record:
            return []
        return [Path(record["source"]) / rel.rstrip("/") for rel in record["links"]]

    def clean_outputs(self, tree: Path) -> None:
        """Remove what earlier pipeline runs left in `tree`; keep the applied patch and links.

        Every timed run then starts from the same state: a checkpoint left by the
        previous run cannot make the next one resume instead of train. Edits made in
        the candidate other than through apply_to_candidate are dropped too.
        """
        if os.path.realpath(tree) == os.path.realpath(self.candidate_tree):
            self._rebuild_candidate()  # new files of the patch are untracked: re-apply it
        else:
            git("reset", "--quiet", "--hard", cwd=tree)
            self._clean(tree)

    def checkout_candidate(self, rev: str) -> None:
        """Put the candidate at commit `rev` (e.g. the original HEAD, for a final comparison)."""
        try:
            sha = git("rev-parse", "--verify", f"{rev}^{{commit}}", cwd=self.repo_root).strip()
        except GitError:
            raise ValueError(f"{rev!r} is not a commit in {self.repo_root}") from None
        self._set_candidate(sha, None)

    def delete_branch(self) -> None:
        """Delete the run's branch, for throwaway runs such as `perfloop profile`.

        Call cleanup() first: git keeps a branch that a worktree has checked out.
        """
        ref = f"refs/heads/{self.branch}"
        if git_ok("rev-parse", "--verify", "--quiet", ref, cwd=self.repo_root):
            git("branch", "-D", self.branch, cwd=self.repo_root)

    def _ensure_worktree(self, tree: Path, attached: bool) -> None:
        """Make `tree` a worktree of the branch (attached) or of its head (detached)."""
        registered = list_worktrees(self.repo_root)
        wanted = f"refs/heads/{self.branch}" if attached else None
        if os.path.realpath(tree) in registered:
            if registered[os.path.realpath(tree)] == wanted and (tree / ".git").exists():
                return
            # Also drops the registration of a tree whose folder vanished. Not
            # `git worktree prune`: that would drop the user's own missing worktrees too.
            git("worktree", "remove", "--force", "--force", str(tree), cwd=self.repo_root)
        elif tree.exists():
            shutil.rmtree(tree)  # ours, but not a worktree: leftover of a crash
        if attached:
            elsewhere = [path for path, ref in registered.items() if ref == wanted]
            if elsewhere:
                raise BadInput(
                    f"branch {self.branch} is checked out at {elsewhere[0]}: switch that "
                    "checkout to another branch, or start a new run"
                )
            git("worktree", "add", "--quiet", str(tree), self.branch, cwd=self.repo_root)
        else:
            git("worktree", "add", "--quiet", "--detach", str(tree), self.branch,
                cwd=self.repo_root)

    def _patched_tree(self, patch: str, head: str) -> tuple[str, list[str]]:
        """Apply `patch` to `head` in a private index; return the tree and the paths it changes."""
        # The commit then holds `head` plus exactly the patch, whatever a pipeline
        # wrote into a worktree; git's own path checks refuse `..`, `.git` and links.
        with tempfile.TemporaryDirectory(dir=self.state_dir) as scratch:
            env = {"GIT_INDEX_FILE": os.path.join(scratch, "index")}
            git("read-tree", head, cwd=self.repo_root, env=env)
            try:
                git("apply", "--cached", "--whitespace=nowarn", cwd=self.repo_root,
                    stdin=_terminated(patch), env=env)
            except GitError as exc:
                raise PatchError(f"patch does not apply to {self.branch}: {exc.stderr}") from None
            tree = git("write-tree", cwd=self.repo_root, env=env).strip()
        changed = git("diff-tree", "-r", "--no-renames", "--name-only", "-z", head, tree,
                      cwd=self.repo_root)
        if not changed:
            raise PatchError(f"patch changes nothing on {self.branch}")
        return tree, sorted(split_z(changed))

    def _set_candidate(self, rev: str, patch: str | None) -> None:
        """Record what the candidate holds (`rev` plus `patch`) and rebuild it so."""
        record = {"rev": rev, "patch": patch}
        (self.state_dir / "candidate.json").write_text(json.dumps(record))
        self._rebuild_candidate()

    def _rebuild_candidate(self) -> None:
        """Make the candidate exactly its recorded commit plus patch, with no outputs."""
        path = self.state_dir / "candidate.json"
        record = json.loads(path.read_text()) if path.exists() else {"rev": self.head()}
        git("reset", "--quiet", "--hard", record["rev"], cwd=self.candidate_tree)
        self._clean(self.candidate_tree)
        if record.get("patch"):
            try:
                git("apply", "--whitespace=nowarn", cwd=self.candidate_tree,
                    stdin=_terminated(record["patch"]))
            except GitError as exc:
                path.unlink()
                raise PatchError(
                    f"patch does not apply to {record['rev'][:12]}: {exc.stderr}"
                ) from None

    def _clean(self, tree: Path) -> None:
        """Remove untracked and ignored files from `tree`, then link the inputs again."""
        # -x removes ignored outputs too (a stale checkpoint would let the next run
        # resume instead of train). Linked inputs go with them, as links only (git
        # never follows a link when removing), and are linked again below.
        git("clean", "-ffdxq", cwd=tree)
        self._restore_links(tree)

    def _sync_trees(self) -> None:
        """Bring both worktrees to the branch head after it moved."""
        git("reset", "--quiet", "--hard", cwd=self.base_tree)
        self._restore_links(self.base_tree)
        self.reset_candidate()

    def _trailer(self, rev: str, key: str) -> str | None:
        """Return the value of trailer `key` on commit `rev`, None if absent."""
        out = git("log", "-1", f"--format=%(trailers:key={key},valueonly)", rev,
                  cwd=self.repo_root).strip()
        return out.splitlines()[-1].strip() if out else None

    def _link_records(self) -> dict:
        """Return what was linked into each tree, as saved in state_dir."""
        path = self.state_dir / "linked_inputs.json"
        return json.loads(path.read_text()) if path.exists() else {}

    def _restore_links(self, tree: Path) -> None:
        """Re-create the links recorded for `tree` that are missing."""
        record = self._link_records().get(str(tree))
        if record:
            link_inputs(Path(record["source"]), self.target_dir(tree), record["links"])


def _terminated(patch: str) -> str:
    """Return `patch` ending with a newline, which git apply requires."""
    return patch if patch.endswith("\n") else patch + "\n"
