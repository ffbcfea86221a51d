{{/*
Names and labels every template shares. Objects carry apiservice/'s labels (name, part-of)
and Helm's (chart, instance, managed-by, version); selectors add the release's instance to
apiservice/'s name, so two releases' pods are never selected by each other's Service.
*/}}

{{- define "cairn.helmLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}

{{- define "cairn.labels" -}}
app.kubernetes.io/name: {{ .Values.name }}
app.kubernetes.io/part-of: cairn
{{ include "cairn.helmLabels" . }}
{{- end }}

{{- define "cairn.selectorLabels" -}}
app.kubernetes.io/name: {{ .Values.name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* postgresql.enabled's objects: a name of their own, so Cairn's selectors never pick its pod. */}}
{{- define "cairn.postgresqlLabels" -}}
app.kubernetes.io/name: {{ .Values.name }}-postgresql
app.kubernetes.io/part-of: cairn
app.kubernetes.io/component: database
{{ include "cairn.helmLabels" . }}
{{- end }}

{{- define "cairn.postgresqlSelectorLabels" -}}
app.kubernetes.io/name: {{ .Values.name }}-postgresql
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The Secret and key DATABASE_URL is read from. */}}
{{- define "cairn.databaseSecret" -}}
{{- if .Values.database.url -}}
{{ .Values.name }}-database
{{- else if .Values.postgresql.enabled -}}
{{ .Values.name }}-postgresql
{{- else -}}
{{ required "database.existingSecret, database.url or postgresql.enabled must say where PostgreSQL is" .Values.database.existingSecret }}
{{- end }}
{{- end }}

{{- define "cairn.databaseSecretKey" -}}
{{- if or .Values.database.url .Values.postgresql.enabled -}}
url
{{- else -}}
{{ .Values.database.secretKey }}
{{- end }}
{{- end }}

{{/* The cert-manager Certificate whose CA cainjector writes into the APIServices. */}}
{{- define "cairn.certificateName" -}}
{{ .Values.name }}-serving
{{- end }}
