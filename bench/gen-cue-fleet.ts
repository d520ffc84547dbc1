/**
 * Generates a Lookout-like CUE fleet document for benchmarks: `hosts` hosts with `servicesPerHost`
 * services each. Every service's `check` is one of a 10-branch disjunction discriminated by `type`
 * (with defaults), hosts and services are unified with definitions, service names come from a
 * pattern alias, and label keys are pattern-constrained (`[=~"^[a-z]+$"]: string`).
 */

const schema = `package fleet

#TCP: {type: "tcp", port: int & >0 & <65536, timeout: *"10s" | string}
#HTTP: {type: "http", url: =~"^https?://", status: *200 | int & >=100 & <600, timeout: *"10s" | string}
#DNS: {type: "dns", query: string, record: *"A" | "AAAA" | "MX" | "TXT"}
#ICMP: {type: "icmp", count: *3 | int & >=1, loss: *20 | number}
#TLS: {type: "tls", port: *443 | int, warnDays: *30 | int}
#SNMP: {type: "snmp", oid: =~"^[0-9.]+$", community: *"public" | string}
#Command: {type: "command", command: [...string], timeout: *"30s" | string}
#Passive: {type: "passive", freshness: *"5m" | string}
#SMTP: {type: "smtp", port: *25 | int, starttls: *true | bool}
#Ping: {type: "ping", warn: *100 | number, crit: *500 | number}
#Check: #TCP | #HTTP | #DNS | #ICMP | #TLS | #SNMP | #Command | #Passive | #SMTP | #Ping

#Service: {
\tname:     string
\tinterval: *"60s" | string
\tretries:  *3 | int & >=1 & <=10
\tcheck:    #Check
\tnotify:   *true | bool
\ttags: [...string]
}

#Host: {
\taddress: string
\tlabels: [=~"^[a-z]+$"]: string
\tservices: [Name=string]: #Service & {name: Name}
}

hosts: [string]: #Host
`;

const checkBodies = [
  (i: number) => `{type: "tcp", port: ${1 + (i % 65000)}}`,
  (i: number) => `{type: "http", url: "https://h${i}.example/health"}`,
  (i: number) => `{type: "dns", query: "h${i}.example"}`,
  () => `{type: "icmp"}`,
  () => `{type: "tls", warnDays: 14}`,
  (i: number) => `{type: "snmp", oid: "1.3.6.1.2.1.1.${i % 100}"}`,
  (i: number) => `{type: "command", command: ["check_disk", "-w", "${10 + (i % 80)}%"]}`,
  () => `{type: "passive"}`,
  () => `{type: "smtp", starttls: false}`,
  (i: number) => `{type: "ping", warn: ${50 + (i % 50)}}`,
];

/** The document text for `hosts` × `servicesPerHost` services. */
export function generateFleet(hosts: number, servicesPerHost = 10): string {
  const parts: string[] = [schema, "hosts: {\n"];
  let n = 0;
  for (let h = 0; h < hosts; h++) {
    parts.push(
      `\t"host-${h}": {\n\t\taddress: "10.${(h >> 16) & 255}.${(h >> 8) & 255}.${h & 255}"\n` +
        `\t\tlabels: {env: "${h % 3 === 0 ? "prod" : "test"}", team: "t${"abcdefghij"[h % 10]}"}\n\t\tservices: {\n`,
    );
    for (let s = 0; s < servicesPerHost; s++) {
      const body = checkBodies[s % checkBodies.length] as (i: number) => string;
      const extra = s % 4 === 0 ? `, interval: "30s", tags: ["edge", "s${s}"]` : "";
      parts.push(`\t\t\tsvc${s}: {check: ${body(n)}${extra}}\n`);
      n++;
    }
    parts.push("\t\t}\n\t}\n");
  }
  parts.push("}\n");
  return parts.join("");
}
