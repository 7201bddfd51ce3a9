import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../../utils/policy/secrets.js';
import { passwordName, weakPassword } from '../../../utils/policy/secret-passwords.js';
import { isSecretPath } from '../../../utils/policy/paths.js';

/** Each line redacted on its own: the secret (last element) must be gone and a marker in its place. */
function expectRedacted(cases: [line: string, secret: string][]): void {
  for (const [line, secret] of cases) {
    const out = redactSecrets(line).text;
    expect(out, line).not.toContain(secret);
    expect(out, line).toMatch(/\[REDACTED:[\w-]+\]/);
  }
}

describe('passwords in a command’s own syntax', () => {
  it('are redacted for the documented password options of common tools', () => {
    expectRedacted([
      ['curl -u admin:hunter2 https://api.example.com/v1', 'hunter2'],
      ['curl --user admin:hunter2 https://api.example.com', 'hunter2'],
      ['curl --user=admin:hunter2 https://api.example.com', 'hunter2'],
      ['curl -uadmin:hunter2 https://api.example.com', 'hunter2'],
      ['curl -s -X POST -u "admin:hunter2" https://api.example.com', 'hunter2'],
      ['curl --proxy-user bob:hunter2 https://x.example', 'hunter2'],
      ['curl -X POST \\\n  -H "Accept: json" \\\n  -u admin:hunter2 https://x.example', 'hunter2'],
      ['mysql -u root -phunter2 mydb < dump.sql', 'hunter2'],
      ['mysql -u root -p"hunter2" mydb', 'hunter2'],
      ['mysql -u root --password=hunter2 mydb', 'hunter2'],
      ['mysqldump --user=root --password=hunter2 mydb > x.sql', 'hunter2'],
      ["sshpass -p 'hunter2' ssh deploy@host", 'hunter2'],
      ['sshpass -p hunter2 scp a deploy@host:', 'hunter2'],
      ['redis-cli -h cache -a hunter2 ping', 'hunter2'],
      ['docker login -u ci -p hunter2 registry.example.com', 'hunter2'],
      ['docker login --username ci --password hunter2 reg.example.com', 'hunter2'],
      ['echo "hunter2" | docker login -u ci --password-stdin', 'hunter2'],
      ['htpasswd -b -c /etc/nginx/.htpasswd admin hunter2', 'hunter2'],
      ['htpasswd -bc .htpasswd admin hunter2', 'hunter2'],
      ['htpasswd -nb admin hunter2', 'hunter2'],
      ['wget --http-user=bob --http-password=hunter2 https://x.example/f', 'hunter2'],
      ['mongo -u admin -p hunter2 --authenticationDatabase admin', 'hunter2'],
      ['sqlcmd -S localhost -U sa -P \'hunter2\' -Q "SELECT 1"', 'hunter2'],
      ['sqlplus scott/hunter2@orcl @script.sql', 'hunter2'],
      ['ldapsearch -x -D cn=admin,dc=ex,dc=org -w hunter2 -b dc=ex', 'hunter2'],
      ['openssl pkcs12 -export -passout pass:hunter2 -out a.p12', 'hunter2'],
      ['keytool -importcert -keystore ks.jks -storepass hunter2 -noprompt', 'hunter2'],
      ['zip -P hunter2 backup.zip data.txt', 'hunter2'],
      ['7z a -phunter2 backup.7z data', 'hunter2'],
      ['smbclient //srv/share -U bob%hunter2', 'hunter2'],
      ["echo 'root:hunter2' | chpasswd", 'hunter2'],
      ['rabbitmqctl add_user admin hunter2', 'hunter2'],
      ['gpg --batch --passphrase hunter2 -d secrets.gpg', 'hunter2'],
      ['RUN mysql -uroot -phunter2 -e "CREATE DATABASE app"', 'hunter2'],
      ['  - sudo -u deploy sshpass -p hunter2 rsync -a dist/ web:/srv', 'hunter2'],
    ]);
  });

  it('leave placeholders, prompts, other options and ordinary commands alone', () => {
    const text = [
      'curl -u "$API_USER:$API_PASS" https://api.example.com',
      'curl -u ${USER}:${TOKEN} https://x.example',
      'mysql -u root -p mydb',
      'mysql -u root -p$MYSQL_ROOT_PASSWORD mydb',
      'mysql --port=3306 -P3306 -h db',
      'docker run -u 1000:1000 -p 8080:80 nginx',
      'docker login -u ci --password-stdin registry.example.com',
      'echo "test" | prettier --stdin --parser babel',
      'sshpass -p "$SSH_PASS" ssh deploy@host',
      'redis-cli -a "$REDIS_PASSWORD" ping',
      'htpasswd -c .htpasswd admin',
      'openssl rsa -in k.pem -passin env:KEY_PASS',
      'openssl rsa -in k.pem -passin file:/run/secrets/pass',
      'slog.Warn("using --password via the CLI is insecure. Use --password-stdin")',
      '--hide-secret flag. Please carefully consider how and when these flags are used.',
      'run --password-file /run/secrets/db_pass --password-stdin',
      'docker login --password <password> registry.example.com',
    ].join('\n');
    expect(redactSecrets(text)).toEqual({ text, redactions: [] });
  });
});

describe('passwords of any strength in password slots', () => {
  it('are redacted in config lines, code literals, commented-out lines, command words and prose', () => {
    expectRedacted([
      ['DB_PASSWORD=hunter2\n', 'hunter2'],
      ['export MYSQL_PASSWORD=hunter2', 'hunter2'],
      ['PGPASSWORD=hunter2 psql -h db -U app', 'hunter2'],
      ['db:\n  password: hunter2\n', 'hunter2'],
      ['deploy:\n  variables:\n    DB_PASSWORD: changeme\n', 'changeme'],
      ['DB_PASS := hunter2\n', 'hunter2'],
      ['DB_PASSWORD ?= hunter2\n', 'hunter2'],
      ['FROM postgres\nENV POSTGRES_PASSWORD hunter2\n', 'hunter2'],
      ['ENV POSTGRES_PASSWORD=hunter2\n', 'hunter2'],
      ['ARG DB_PASSWORD=hunter2\n', 'hunter2'],
      ['docker run -e POSTGRES_PASSWORD=hunter2 -d postgres', 'hunter2'],
      ['java -Dspring.datasource.password=hunter2 -jar app.jar', 'hunter2'],
      ['helm install db bitnami/postgresql --set auth.postgresPassword=hunter2', 'hunter2'],
      ['kubectl create secret generic db --from-literal=password=hunter2', 'hunter2'],
      ["const password = 'hunter2';", 'hunter2'],
      ['DB_PASSWORD = "letmein"', 'letmein'],
      ['{"password": "hunter2"}', 'hunter2'],
      ['conn = connect(user="app", password="tiger")', 'tiger'],
      ['# password: hunter2\nconnect()', 'hunter2'],
      ['// DB_PASSWORD=hunter2', 'hunter2'],
      ['/* password = hunter2 */', 'hunter2'],
      ['<!-- password: hunter2 -->', 'hunter2'],
      ['# the admin password is hunter2\nconnect()', 'hunter2'],
      ['The default password is `changeme`.', 'changeme'],
      ['machine api.example.com login bob password hunter2', 'hunter2'],
      ['base: &pw hunter2\nprod:\n  password: *pw\n', 'hunter2'],
      ["CREATE LOGIN scott WITH PASSWORD = 'tiger';", 'tiger'],
    ]);
  });

  it('leave types, references, placeholders, labels, versions and code alone', () => {
    const text = [
      'password = input("Password: ")',
      '  password: string',
      '  password: string;',
      'password: str = Field(...)',
      'val password: String',
      'password = password.encode("latin1")',
      '  password: password',
      'password: ${{ secrets.DB_PASSWORD }}',
      'password: "{{ vault_db_password }}"',
      'DB_PASSWORD=$DB_PASSWORD',
      'password: null',
      'password: true',
      '"password": "Passwort",',
      '"confirmPassword": "Confirm",',
      '"password": "Contraseña",',
      'autocomplete: "current-password"',
      'passwordHash: "sha256"',
      '"minipass": "^3.1.1",',
      '"pbkdf2-password": "1.2.1",',
      'minipass: "npm:^7.0.4"',
      'bypass: "everything"',
      'tlsSecret: wordpress.local-tls',
      'The password is required.',
      'the password was hashed',
      'password_file: /run/secrets/db_password',
      'const { password } = req.body;',
      'if (password=== "") return;',
      'PWD=/home/user',
    ].join('\n');
    expect(redactSecrets(text)).toEqual({ text, redactions: [] });
  });

  it('passwordName reads the last word of a name; weakPassword the value', () => {
    for (const name of [
      'password',
      'DB_PASSWORD',
      'dbPassword',
      'smtp_pass',
      'postgrespassword',
      'passwd',
      'pwd',
      'password2',
    ])
      expect(passwordName(name), name).toBe(true);
    for (const name of ['password_hash', 'passwordFile', 'bypass', 'minipass', 'compass', 'JWT_SECRET', 'api_key'])
      expect(passwordName(name), name).toBe(false);
    expect(weakPassword('hunter2', 'prose')).toBe(true);
    expect(weakPassword('required', 'prose')).toBe(false);
    expect(weakPassword('yourStrong(!)Password', 'quoted')).toBe(true);
    expect(weakPassword('new-password', 'quoted')).toBe(false);
  });
});

describe('settings set by name, prompts answered by script, and files named for what they hold', () => {
  it('redacts a setting set by name, an expect answer, a .pgpass line and an .npmrc token line', () => {
    expectRedacted([
      ['aws configure set aws_secret_access_key Zx9Qw3Er7Ty1Ui5OpwJalrXUtnFEMI', 'Zx9Qw3Er7Ty1Ui5Op'],
      ['npm config set db_password hunter2', 'hunter2'],
      ['git config --global smtp.pass hunter2', 'hunter2'],
      ['expect "Password:"\nsend "hunter2\\r"', 'hunter2'],
      ['db.example.com:5432:app:bob:hunter2', 'hunter2'],
      ['echo "localhost:5432:*:postgres:hunter2" > ~/.pgpass', 'hunter2'],
      ['//registry.npmjs.org/:_authToken=Zx9Qw3Er7Ty1Ui5Op', 'Zx9Qw3Er7Ty1Ui5Op'],
    ]);
    const text = [
      'git config --global user.name "Jane Doe"',
      'npm config set registry https://r.example.com',
      'a:1:b:c:d',
    ].join('\n');
    expect(redactSecrets(text)).toEqual({ text, redactions: [] });
  });

  it('a file named as a password holds one, of any strength; a source file of that name does not', () => {
    expect(redactSecrets('db-78n9n\n', 'db/db_password.txt').text).toBe('[REDACTED:secret_assignment]\n');
    expect(redactSecrets('changeme', 'secrets/postgres_password').text).toBe('[REDACTED:secret_assignment]');
    expect(redactSecrets('hello\n', 'src/password.ts').text).toBe('hello\n');
  });

  it('isSecretPath: what a name says it holds, shell histories and backup copies of secrets', () => {
    for (const p of [
      'db/password.txt',
      'api_keys.json',
      'token.json',
      'secret.txt',
      '.bash_history',
      '.psql_history',
      '.env~',
      '.env.swp',
      'server.key.orig',
      'id_rsa.bak',
    ])
      expect(isSecretPath(p), p).toBe(true);
    for (const p of [
      '.env.example.bak',
      'src/password.ts',
      'docs/history.md',
      'tokens.css',
      'keys.txt',
      'CHANGELOG.bak',
    ])
      expect(isSecretPath(p), p).toBe(false);
  });
});

describe('a password name beside its value by syntax, in SQL and mid-sentence', () => {
  it('takes a value of any strength', () => {
    expectRedacted([
      ["define('DB_PASSWORD', 'hunter2');", 'hunter2'],
      ['os.getenv("DB_PASSWORD", "hunter2")', 'hunter2'],
      ['<password>hunter2</password>', 'hunter2'],
      ['<add key="DbPassword" value="hunter2" />', 'hunter2'],
      ['env:\n  - name: DB_PASSWORD\n    value: hunter2\n', 'hunter2'],
      ["const password = process.env.DB_PASSWORD || 'hunter2';", 'hunter2'],
      ['db:\n  password: >-\n    hunter2\n', 'hunter2'],
      ["CREATE ROLE app WITH LOGIN PASSWORD 'hunter2';", 'hunter2'],
      ["CREATE USER 'app'@'%' IDENTIFIED BY 'hunter2';", 'hunter2'],
      ['Log in as admin, password: hunter2 and change it.', 'hunter2'],
    ]);
  });

  it('leaves a hash function’s arguments, HTML attributes, comparisons and pass/fail alone', () => {
    const text = [
      "const key = scryptSync('password', 'salt', 64);",
      "bcrypt.hash('password', 10)",
      '<input type="password" class="form-control" placeholder="Password">',
      "request.form['password'] != 'secret'",
      "password == 'password' and username == 'username'",
      '[Compare("Password", ErrorMessage = "The password and confirmation password do not match.")]',
      'pass: "passed",',
      'via table1.primary_key==table2.primary_key',
      '{ password: pw2 }',
    ].join('\n');
    expect(redactSecrets(text)).toEqual({ text, redactions: [] });
  });
});
