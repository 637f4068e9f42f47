-- Time zones stored before only tz database names were accepted. Foundation also took offsets
-- such as `GMT+5` and `GMT+0530`; PostgreSQL reads `GMT+5` as UTC-5 (POSIX signs) and does not know
-- `GMT+0530`, so weekly statistics and "this week" for such a tenant were wrong or failed. Each is
-- repaired in place: a whole-hour offset from -12 to +14 becomes its tz database name with the
-- same meaning (`GMT+5`, UTC+5, becomes `Etc/GMT-5`); anything else PostgreSQL does not know
-- becomes `UTC`. The change bumps the profile's version, so devices receive it through sync.

WITH parsed AS (
    SELECT t.tenant_id,
           regexp_match(t.time_zone, '^(?:GMT|UTC|UT)([+-])(\d{1,2})(?::?(\d{2}))?$', 'i') AS offset_parts,
           t.time_zone ~* '^(GMT|UTC|UT)[+-]' AS is_offset,
           EXISTS (SELECT FROM pg_timezone_names z WHERE z.name = t.time_zone) AS known
    FROM tenants t
), repaired AS (
    SELECT tenant_id,
           CASE
               WHEN offset_parts IS NOT NULL AND coalesce(offset_parts[3], '00') = '00'
                    AND (CASE offset_parts[1] WHEN '+' THEN 1 ELSE -1 END) * offset_parts[2]::int BETWEEN -12 AND 14
               THEN CASE
                   WHEN offset_parts[2]::int = 0 THEN 'Etc/GMT'
                   -- tz database signs are POSIX: Etc/GMT-5 is five hours east of Greenwich.
                   ELSE 'Etc/GMT' || CASE offset_parts[1] WHEN '+' THEN '-' ELSE '+' END || offset_parts[2]::int
               END
               ELSE 'UTC'
           END AS zone
    FROM parsed
    WHERE is_offset OR NOT known
)
UPDATE tenants t
SET time_zone = r.zone, updated_at = now(), version = t.version + 1
FROM repaired r
WHERE t.tenant_id = r.tenant_id;
