// The lineage across workflows: a task's (or a whole workflow's) upstream and
// downstream in other workflows, drawn with the designer's nodes and dagre layout, each node
// coloured by today's state and showing its owner. Clicking a node recentres on it, so "who
// depends on me" is one click from any task; the picture exports as PNG or SVG.
import { DownloadOutlined } from '@ant-design/icons';
import { Background, Controls, ReactFlow, ReactFlowProvider } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { App, Button, Dropdown, Flex, InputNumber, Segmented, Select, Spin, Typography, theme } from 'antd';
import { useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { useTheme } from '../app/theme-context.ts';
import { downloadUrl, edgeId, FitOnChange, renderGraphImage, taskNodeTypes, useTaskGraph } from '../graph/index.ts';
import { useGraphAria } from '../graph/use-graph-aria.ts';
import { StateLegend } from '../runs/StateLegend.tsx';
import { EmptyState, ErrorState, errorMessage } from '../shared/feedback.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { useOwnerFilter } from '../shared/use-owner-filter.ts';
import { imageName, lineageTasks, ownersOf } from './lineage-tasks.ts';
import './lineage.css';
import { useLineage } from '../server-state/index.ts';

type Way = 'both' | 'up' | 'down';
const DEFAULT_DEPTH = 5;

export default function LineagePage() {
  return (
    <ReactFlowProvider>
      <LineageView />
    </ReactFlowProvider>
  );
}

function LineageView() {
  const { target = '' } = useParams();
  const { t } = useTranslation('lineage');
  const navigate = useNavigate();
  const { message } = App.useApp();
  const { dark } = useTheme();
  const { token } = theme.useToken();
  const [way, setWay] = useState<Way>('both');
  const [depth, setDepth] = useState(DEFAULT_DEPTH);
  const [owner, setOwner] = useOwnerFilter();
  const canvas = useRef<HTMLDivElement>(null);
  const options = { up: way === 'down' ? 0 : depth, down: way === 'up' ? 0 : depth };
  const lineage = useLineage(target, options);
  const tasks = useMemo(
    () =>
      lineage.data
        ? lineageTasks(lineage.data, {
            noOwner: t('node.noOwner'),
            missing: t('node.missing'),
            owner: (o) => t('node.owner', { owner: o }),
          })
        : [],
    [lineage.data, t],
  );
  const owners = useMemo(() => (lineage.data ? ownersOf(lineage.data) : new Map<string, string[]>()), [lineage.data]);
  const graph = useTaskGraph(tasks, 'LR');
  const focus = useMemo(() => new Set(lineage.data?.focus ?? []), [lineage.data]);
  const mine = useMemo(() => new Set(owner ? (owners.get(owner) ?? []) : []), [owner, owners]);
  const nodes = useMemo(
    () =>
      graph.nodes.map((n) => ({
        ...n,
        selected: focus.has(n.id),
        className: mine.has(n.id) ? 'ax-lineage-mine' : undefined,
      })),
    [graph.nodes, focus, mine],
  );
  // across workflows: dashed, with the date rule when it is not the default (same day)
  const across = useMemo(
    () => new Map((lineage.data?.edges ?? []).filter((e) => e.across).map((e) => [edgeId(e.from, e.to), e.date])),
    [lineage.data],
  );
  const edges = useMemo(
    () =>
      graph.edges.map((e) => {
        if (!across.has(e.id)) return e;
        const date = across.get(e.id);
        return {
          ...e,
          style: { strokeDasharray: '6 4' },
          ...(date &&
            date !== 'same_day' && { label: t(`date.${date}`), labelBgStyle: { fill: token.colorBgContainer } }),
        };
      }),
    [graph.edges, across, t, token.colorBgContainer],
  );

  const exportImage = async (format: 'png' | 'svg') => {
    const viewport = canvas.current?.querySelector<HTMLElement>('.react-flow__viewport');
    if (!viewport || nodes.length === 0) return;
    try {
      downloadUrl(await renderGraphImage(viewport, nodes, format, token.colorBgContainer), imageName(target, format));
    } catch (e) {
      message.error(t('export.failed', { error: errorMessage(e) }));
    }
  };
  const aria = useGraphAria(t);
  const workflow = lineage.data?.nodes.find((n) => focus.has(n.id))?.workflow ?? target;

  return (
    <Flex vertical gap={12} style={{ height: 'calc(100vh - 140px)', minHeight: 480 }}>
      <PageHeader
        title={t('title', { target })}
        subtitle={t('subtitle')}
        extra={
          <>
            <Link to={`/workflows/${encodeURIComponent(workflow)}`}>{t('openWorkflow', { name: workflow })}</Link>
            <Dropdown
              menu={{
                items: [
                  { key: 'png', label: t('export.png') },
                  { key: 'svg', label: t('export.svg') },
                ],
                onClick: ({ key }) => void exportImage(key as 'png' | 'svg'),
              }}
            >
              <Button icon={<DownloadOutlined />} data-testid="lineage-export">
                {t('export.button')}
              </Button>
            </Dropdown>
          </>
        }
      />
      <Flex gap={16} wrap align="center" data-testid="lineage-controls">
        <Segmented<Way>
          value={way}
          onChange={setWay}
          options={[
            { value: 'both', label: t('way.both') },
            { value: 'up', label: t('way.up') },
            { value: 'down', label: t('way.down') },
          ]}
          aria-label={t('way.label')}
        />
        <Flex gap={6} align="center">
          <Typography.Text type="secondary">{t('depth')}</Typography.Text>
          <InputNumber
            min={1}
            max={50}
            value={depth}
            onChange={(v) => setDepth(v ?? DEFAULT_DEPTH)}
            size="small"
            style={{ width: 64 }}
            aria-label={t('depth')}
          />
        </Flex>
        <Flex gap={6} align="center">
          <Typography.Text type="secondary">{t('mine')}</Typography.Text>
          <Select
            allowClear
            size="small"
            style={{ minWidth: 160 }}
            placeholder={t('mineNone')}
            value={owner}
            onChange={(v?: string) => setOwner(v)}
            options={[...owners.keys()]
              .sort()
              .map((o) => ({ value: o, label: t('mineCount', { owner: o, count: owners.get(o)?.length ?? 0 }) }))}
            aria-label={t('mine')}
            data-testid="lineage-owner"
          />
        </Flex>
      </Flex>
      <div
        ref={canvas}
        style={{
          position: 'relative',
          flex: 1,
          border: `1px solid ${token.colorBorderSecondary}`,
          borderRadius: 6,
          ['--ax-mine' as string]: token.colorPrimary,
        }}
        data-testid="lineage-graph"
      >
        {lineage.error ? (
          <ErrorState error={lineage.error} onRetry={() => void lineage.refetch()} />
        ) : lineage.data && lineage.data.nodes.length === 0 ? (
          <EmptyState title={t('empty')} />
        ) : !graph.ready ? (
          <Flex justify="center" align="center" style={{ height: '100%' }}>
            <Spin />
          </Flex>
        ) : (
          <ReactFlow
            nodes={nodes}
            edges={edges}
            nodeTypes={taskNodeTypes}
            nodesDraggable={false}
            nodesConnectable={false}
            edgesFocusable={false}
            onNodeClick={(_, node) => navigate(`/lineage/${encodeURIComponent(node.id)}`)}
            colorMode={dark ? 'dark' : 'light'}
            fitView
            minZoom={0.05}
            maxZoom={1.5}
            ariaLabelConfig={aria}
            aria-label={t('graph.label', { target })}
          >
            <FitOnChange shape={nodes.length} />
            <Background gap={20} />
            <Controls showInteractive={false} />
          </ReactFlow>
        )}
      </div>
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {t('help')}
      </Typography.Text>
      <StateLegend />
    </Flex>
  );
}
