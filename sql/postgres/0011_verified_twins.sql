-- The license a verifier chose (Blockscout's license_type; 'none' when not given).
ALTER TABLE verified_contracts ADD COLUMN IF NOT EXISTS license_type text NOT NULL DEFAULT 'none';

-- Bytecode twins (src/verify/twins.ts): a verified contract's deployed code with what differs
-- between deployments of the same build masked out (immutables, linked libraries, the library
-- call protection, the metadata hash), as byte ranges, and the hash of the masked code. Another
-- contract of the same code length whose code masked the same way has the same hash is a twin.
ALTER TABLE verified_contracts ADD COLUMN IF NOT EXISTS twin_length integer;
ALTER TABLE verified_contracts ADD COLUMN IF NOT EXISTS twin_mask jsonb;
ALTER TABLE verified_contracts ADD COLUMN IF NOT EXISTS twin_hash text;
CREATE INDEX IF NOT EXISTS verified_contracts_twin_length ON verified_contracts (twin_length) WHERE twin_length IS NOT NULL;
