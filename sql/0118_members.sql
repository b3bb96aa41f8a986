-- Members of an organization and their roles (docs/security.md, "Roles").
--
-- A membership gives a user a role in one organization: owner (manages members and roles),
-- admin (every other write), analyst (reads only). Every user so far made or was given an
-- organization of their own, so each becomes an owner of it. A session is valid only while its
-- user's membership of the session's organization exists, and carries the role read per request.
CREATE TABLE memberships (
  org_id text NOT NULL REFERENCES organizations(id),
  user_id text NOT NULL REFERENCES users(id),
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'analyst')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, user_id)
);
CREATE INDEX memberships_user_idx ON memberships (user_id, created_at DESC);
INSERT INTO memberships (org_id, user_id, role, created_at) SELECT org_id, id, 'owner', created_at FROM users;

-- An invitation by email: the link's token is shown to the inviter once and stored only as its
-- SHA-256. It is used once (accepted_at), expires, and can be withdrawn (revoked_at).
CREATE TABLE invites (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations(id),
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'analyst')),
  token_hash text NOT NULL UNIQUE,
  invited_by text REFERENCES users(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  accepted_by text REFERENCES users(id),
  revoked_at timestamptz
);
CREATE INDEX invites_org_idx ON invites (org_id, created_at DESC);

-- A deleted app keeps its rows for the reports that name it; its SDK key is refused from then on.
ALTER TABLE apps ADD COLUMN deleted_at timestamptz;
