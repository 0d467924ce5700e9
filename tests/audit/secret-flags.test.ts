import { describe, expect, test } from "bun:test";
import { redactText } from "../../src/audit/redact.ts";
import { flagSecrets, redactFlagSecrets } from "../../src/audit/secret-flags.ts";

describe("redactText() on command lines and credential files (secrets no secret-like name precedes)", () => {
  test.each([
    ["mysql's -p", "mysql -uroot -phunter2xyz db", "mysql -uroot -p[redacted] db"],
    ["mysqldump's -p", "mysqldump -h h -pS3cret db > x.sql", "mysqldump -h h -p[redacted] db > x.sql"],
    ["sshpass -p", "sshpass -p 'Pa55word' ssh u@h", "sshpass -p '[redacted]' ssh u@h"],
    [
      "docker login -p",
      "docker login -u bob -p s3cr3tpw registry.example",
      "docker login -u bob -p [redacted] registry.example",
    ],
    ["redis-cli -a", "redis-cli -h r -a r3disPass ping", "redis-cli -h r -a [redacted] ping"],
    ["zip -P", "zip -P zipPass9 out.zip f", "zip -P [redacted] out.zip f"],
    ["7z -p", "7z a -pSevenPass out.7z f", "7z a -p[redacted] out.7z f"],
    [
      "openssl -pass pass:",
      "openssl enc -aes256 -pass pass:OpenPass1 -in f",
      "openssl enc -aes256 -pass pass:[redacted] -in f",
    ],
    [
      "curl -u user:password",
      "curl -u alice:S3cr3tPassw0rd https://api.example/x",
      "curl -u alice:[redacted] https://api.example/x",
    ],
    [
      "curl --user=user:password",
      "curl --user=alice:S3cr3t https://x.example",
      "curl --user=alice:[redacted] https://x.example",
    ],
    [
      "a .netrc line",
      "machine api.example login bob password N3tRcPass",
      "machine api.example login bob password [redacted]",
    ],
    [
      "an XML element",
      "<user>bob</user><password>XmlPass9</password>",
      "<user>bob</user><password>[redacted]</password>",
    ],
    [
      "a token piped into gh auth login",
      "echo gho_notatokenshape | gh auth login --with-token",
      "echo [redacted] | gh auth login --with-token",
    ],
    [
      "an .npmrc auth token",
      "//registry.npmjs.org/:_authToken=00000000-aaaa-bbbb",
      "//registry.npmjs.org/:_authToken=[redacted]",
    ],
    [
      "kubectl --from-literal",
      "kubectl create secret generic s --from-literal=password=K8sPass",
      "kubectl create secret generic s --from-literal=password=[redacted]",
    ],
    [
      "an AWS signature",
      "https://b.s3.amazonaws.com/k?X-Amz-Expires=60&X-Amz-Signature=abcdef0123456789",
      "https://b.s3.amazonaws.com/k?X-Amz-Expires=60&X-Amz-Signature=[redacted]",
    ],
    [
      "an Azure SAS signature",
      "https://a.blob.core.windows.net/c/f?sv=2022&sig=AbCdEf%2Bgh",
      "https://a.blob.core.windows.net/c/f?sv=2022&sig=[redacted]",
    ],
    [
      "a Slack webhook's path",
      "https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/cccccccccccccccccccccccc",
      "https://hooks.slack.com/services/[redacted]",
    ],
    [
      "a Discord webhook's token",
      "https://discord.com/api/webhooks/123456789012/AbCdEfGhIjKlMnOpQrStUvWxYz0123",
      "https://discord.com/api/webhooks/123456789012/[redacted]",
    ],
    [
      "a URL password holding an @, to its last @",
      "git clone https://alice:p@ssw0rdXYZ@git.example.com/r",
      "git clone https://alice:[redacted]@git.example.com/r",
    ],
    ["sqlcmd -P", "sqlcmd -S db -U sa -P SqlPass9 -Q x", "sqlcmd -S db -U sa -P [redacted] -Q x"],
    ["bcp -P glued", "bcp t out f -S db -U sa -PBcpPass9", "bcp t out f -S db -U sa -P[redacted]"],
    ["openssl -k", "openssl enc -aes256 -k OsslPass9 -in f", "openssl enc -aes256 -k [redacted] -in f"],
    ["az login -p", "az login -u bob -p AzPass99", "az login -u bob -p [redacted]"],
    [
      "aws configure set",
      "aws configure set aws_secret_access_key AwsSecret9 && aws configure set region eu-west-1",
      "aws configure set aws_secret_access_key [redacted] && aws configure set region eu-west-1",
    ],
    [
      "aws configure set with a profile",
      "aws configure set --profile p default.aws_session_token AwsSession9",
      "aws configure set --profile p default.aws_session_token [redacted]",
    ],
    [
      "npm config set",
      "npm config set //registry.npmjs.org/:_authToken NpmTok99",
      "npm config set //registry.npmjs.org/:_authToken [redacted]",
    ],
    [
      "git config",
      "git config --global github.token GitTok99",
      "git config --global github.token [redacted]",
    ],
    [
      "gh secret set --body",
      "gh secret set DEPLOY --body GhBody99",
      "gh secret set DEPLOY --body [redacted]",
    ],
    [
      "dotnet user-secrets set",
      'dotnet user-secrets set "Smtp:Relay" DotnetSecret9',
      'dotnet user-secrets set "Smtp:Relay" [redacted]',
    ],
    [
      "mysql's -p in a command after &&, under sudo",
      "cd /app && sudo -E mysql -uroot -pAndPass9 db",
      "cd /app && sudo -E mysql -uroot -p[redacted] db",
    ],
    ["mysql's -p in sh -c", 'sh -c "mysql -pShPass9 db"', 'sh -c "mysql -p[redacted] db"'],
    ["mysql's -p after an assignment", "MYSQL_HOST=db mysql -pEnvPass9", "MYSQL_HOST=db mysql -p[redacted]"],
    ["HTTPie's -a user:password", "http -a bob:HttpPass9 api.example", "http -a bob:[redacted] api.example"],
    [
      "a password echoed into --password-stdin",
      "echo DockerPw99 | docker login -u bob --password-stdin",
      "echo [redacted] | docker login -u bob --password-stdin",
    ],
  ])("redactText() hides %s", (_name, text, expected) => {
    expect(redactText(text)).toBe(expected);
  });

  test.each([
    ["a port after ssh -p", "ssh -p 2222 bob@h"],
    ["a published port", "docker run -p 8080:80 nginx"],
    ["a placeholder password", "mysql -uroot -p$DB_PASS db"],
    ["psql's user", "psql -U postgres -h db"],
    ["an XML element not named like a secret", "<user>bob</user>"],
    ["a login without a password", "docker login registry.example"],
    ["a setting not named like a secret", "aws configure set region eu-west-1"],
    ["git's user name", 'git config --global user.name "Bob"'],
    ["an echo into another command", "echo hello | wc -c"],
    ["sqlcmd's query", "sqlcmd -S db -Q 'select 1'"],
    ["find's -print after a name", "find /var/lib -name mysql -print"],
    ["docker run's user and group", "docker run -u 1000:1000 img"],
    ["rsync's -u", "rsync -u src:/data dst"],
    ["a word list", "tags: mysql -p8080"],
    ["git's credential helper (a setting about a secret)", "git config --global credential.helper store"],
  ])("redactText() keeps %s", (_name, text) => {
    expect(redactText(text)).toBe(text);
  });

  test("flagSecrets() gives where each secret stands, in order", () => {
    const text = "curl -u bob:pw https://x.example && mysql -uroot -pMyPass9 db";
    expect(flagSecrets(text).map(({ start, end }) => text.slice(start, end))).toEqual(["pw", "MyPass9"]);
  });

  test("redactFlagSecrets() leaves a text with none of its words as it is", () => {
    const text = "nothing here but words and numbers 12345";
    expect(redactFlagSecrets(text)).toBe(text);
  });
});
